import { tracing } from '@platform/contracts';
import { keepPreviousData, useInfiniteQuery, useQuery } from '@tanstack/react-query';
import type { z } from 'zod';
import { usePlatform } from '../../api';
import { spanSearchQuery, type SpanSearch } from './search/span-search';

export type Trace = z.infer<typeof tracing.Trace>;
export type SpanCounts = z.infer<typeof tracing.SpanCounts>;
export type SpanPage = z.infer<typeof tracing.SpanPage>;

export const SEARCH_PAGE_SIZE = 100;

/** Every project that holds spans, with its span and trace counts. */
export function useProjects() {
  const platform = usePlatform();
  return useQuery({
    queryKey: ['tracing', 'projects'],
    queryFn: async () => tracing.SpanCounts.parse(await platform.request('tracing', '/api/spans/count')),
  });
}

/** A project's spans matching a search, newest first, a page at a time (the service's cursor). */
export function useSpanSearch(project: string, search: SpanSearch) {
  const platform = usePlatform();
  const { errors } = spanSearchQuery(search, { limit: SEARCH_PAGE_SIZE });
  return useInfiniteQuery({
    queryKey: ['tracing', 'spans', project, search],
    enabled: errors.length === 0,
    initialPageParam: null as string | null,
    getNextPageParam: (page: SpanPage) => page.next_cursor,
    placeholderData: keepPreviousData,
    queryFn: async ({ pageParam }) => {
      const { query } = spanSearchQuery(search, { limit: SEARCH_PAGE_SIZE, cursor: pageParam });
      return tracing.SpanPage.parse(await platform.request('tracing', `/api/projects/${encodeURIComponent(project)}/spans`, { query }));
    },
  });
}

/**
 * One trace as the service's tree. Not re-validated span by span: a trace of 10,000 spans would
 * spend longer in the schema than in the layout; the waterfall reads only the contract's fields.
 */
export function useTrace(traceId: string) {
  const platform = usePlatform();
  return useQuery({
    queryKey: ['tracing', 'trace', traceId],
    queryFn: () => platform.request<Trace>('tracing', `/api/traces/${encodeURIComponent(traceId)}`),
    staleTime: 60_000,
  });
}
