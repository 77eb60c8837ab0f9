import { Badge } from '@mantine/core';

/** Shades whose text reads at AA contrast (4.5:1 and more) on white. */
const COLORS: Record<string, string> = {
  running: 'blue-9',
  paused: 'gray-8',
  completed: 'teal-9',
  completed_with_errors: 'grape-9',
  pending: 'gray-8',
  succeeded: 'teal-9',
  failed: 'red-9',
};

/** An evaluation's or a result's status. */
export function StatusBadge({ status }: { status: string }) {
  const color = `var(--mantine-color-${COLORS[status] ?? 'gray-8'})`;
  return (
    <Badge variant="outline" styles={{ root: { color, borderColor: color } }} data-testid="status">
      {status.replace(/_/g, ' ')}
    </Badge>
  );
}
