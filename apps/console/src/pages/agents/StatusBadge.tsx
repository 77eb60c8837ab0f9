import { Badge } from '@mantine/core';

const colors: Record<string, string> = { active: 'teal', deprecated: 'orange', revoked: 'red' };

/** An agent's lifecycle status (spec 1's `metadata.status`; no status is active). */
export function StatusBadge({ status }: { status: string | null }) {
  const value = status ?? 'active';
  return (
    <Badge color={colors[value] ?? 'gray'} variant="light">
      {value}
    </Badge>
  );
}
