import { Alert, Button, Checkbox, Code, Group, Pagination, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { ApiErrorAlert, DataTable, QueryState, type Column } from '../../ui';
import { DLQ_PAGE, useDeadLetters, useRetryDeadLetters, type MeshMessage } from './mesh-api';

/** Messages that ran out of delivery attempts, with their reason; retry sends them back to their queues. */
export function DeadLettersPanel() {
  const [page, setPage] = useState(1);
  const letters = useDeadLetters((page - 1) * DLQ_PAGE);
  const retry = useRetryDeadLetters();
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const toggle = (id: string) =>
    setSelected((current) => {
      const next = new Set(current);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  const columns: Column<MeshMessage>[] = [
    {
      key: 'pick',
      header: 'Retry',
      render: (message) => <Checkbox aria-label={`Select message ${message.message_id}`} checked={selected.has(message.id)} onChange={() => toggle(message.id)} />,
    },
    { key: 'id', header: 'Message', render: (message) => <Text ff="monospace" size="xs">{message.message_id}</Text> },
    { key: 'agent', header: 'Agent', render: (message) => <Text ff="monospace" size="xs">{message.agent_id}</Text> },
    { key: 'capability', header: 'Capability', render: (message) => message.capability ?? '—' },
    { key: 'attempts', header: 'Attempts', render: (message) => message.attempts },
    { key: 'reason', header: 'Reason', render: (message) => message.dead_reason ?? message.last_error ?? '—' },
    { key: 'payload', header: 'Payload', render: (message) => <Code>{JSON.stringify(message.payload).slice(0, 80)}</Code> },
    { key: 'at', header: 'Created', render: (message) => new Date(message.created_at).toLocaleString() },
  ];

  return (
    <Stack>
      <Group>
        <Button
          disabled={selected.size === 0}
          loading={retry.isPending && retry.variables !== 'all'}
          onClick={() => retry.mutate([...selected], { onSuccess: () => setSelected(new Set()) })}
        >
          Retry selected ({selected.size})
        </Button>
        <Button variant="default" loading={retry.isPending && retry.variables === 'all'} onClick={() => retry.mutate('all', { onSuccess: () => setSelected(new Set()) })}>
          Retry all
        </Button>
      </Group>
      {retry.isError && <ApiErrorAlert error={retry.error} title="Not retried" />}
      {retry.isSuccess && (
        <Alert color="teal" role="status">
          {retry.data.retried} {retry.data.retried === 1 ? 'message is' : 'messages are'} queued again.
        </Alert>
      )}
      <QueryState query={letters}>
        {(data) => (
          <Stack gap="xs">
            <Text size="sm" c="dimmed">
              {data.total} dead {data.total === 1 ? 'letter' : 'letters'}
            </Text>
            <DataTable rows={data.messages} columns={columns} rowKey={(message) => message.id} empty="No dead letter." />
            {data.total > DLQ_PAGE && <Pagination total={Math.ceil(data.total / DLQ_PAGE)} value={page} onChange={setPage} aria-label="Pages of dead letters" />}
          </Stack>
        )}
      </QueryState>
    </Stack>
  );
}
