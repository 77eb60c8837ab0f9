import { Code } from '@mantine/core';

/** A JSON value, pretty-printed, for bodies the console shows as they are. */
export function JsonView({ value, maxHeight = 480 }: { value: unknown; maxHeight?: number }) {
  return (
    <Code block style={{ maxHeight, overflow: 'auto' }} data-testid="json-view">
      {JSON.stringify(value, null, 2) ?? 'undefined'}
    </Code>
  );
}
