import { Group, Pagination, Text } from '@mantine/core';

/** Pages of a `limit`/`offset` list with its total. */
export function Pager({ total, limit, offset, onOffset }: { total: number; limit: number; offset: number; onOffset: (offset: number) => void }) {
  const pages = Math.max(1, Math.ceil(total / limit));
  return (
    <Group justify="space-between" mt="sm">
      <Text size="sm" c="dimmed">
        {total === 0 ? 'None' : `${offset + 1}–${Math.min(offset + limit, total)} of ${total}`}
      </Text>
      {pages > 1 && <Pagination size="sm" total={pages} value={Math.floor(offset / limit) + 1} onChange={(page) => onOffset((page - 1) * limit)} />}
    </Group>
  );
}
