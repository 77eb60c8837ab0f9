import { Badge } from '@mantine/core';

const COLORS: Record<string, string> = {
  running: 'blue.8',
  paused: 'yellow.9',
  completed: 'green.9',
  completed_with_errors: 'orange.9',
  pending: 'gray.8',
  succeeded: 'green.9',
  failed: 'red.9',
};

/** An evaluation's or a result's status, in a colour dark enough to read. */
export function StatusBadge({ status }: { status: string }) {
  return (
    <Badge variant="outline" color={COLORS[status] ?? 'gray.8'} data-testid="status">
      {status.replace(/_/g, ' ')}
    </Badge>
  );
}
