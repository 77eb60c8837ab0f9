import { Alert, Code, Text } from '@mantine/core';
import { describeError } from '../api/errors';

/** The API's refusal as the user should read it: "Not permitted: <message>", with status and code. */
export function ApiErrorAlert({ error, title }: { error: unknown; title?: string }) {
  if (!error) return null;
  const described = describeError(error);
  return (
    <Alert color={described.status === 403 || described.status === 404 ? 'orange' : 'red'} title={title ?? described.title} role="alert">
      <Text size="sm">
        {described.title}: {described.message}
      </Text>
      {described.status !== undefined && (
        <Text size="xs" c="dimmed" mt={4}>
          HTTP {described.status} <Code>{described.code}</Code>
        </Text>
      )}
    </Alert>
  );
}
