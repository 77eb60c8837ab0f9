import { Center, Loader } from '@mantine/core';
import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { ApiErrorAlert } from './ApiErrorAlert';

/** A query's loader, or its error as the API said it, or its data rendered by `children`. */
export function QueryState<T>({ query, children }: { query: UseQueryResult<T>; children: (data: T) => ReactNode }) {
  if (query.isPending)
    return (
      <Center p="lg">
        <Loader size="sm" aria-label="Loading" />
      </Center>
    );
  if (query.isError) return <ApiErrorAlert error={query.error} />;
  return <>{children(query.data)}</>;
}
