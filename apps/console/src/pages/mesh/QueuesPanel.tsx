import { Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { DataTable, QueryState } from '../../ui';
import { useQueueDepth, useQueueStats } from './mesh-api';

function Figure({ label, value }: { label: string; value: number }) {
  return (
    <Paper withBorder p="xs">
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text fw={700}>{value.toLocaleString()}</Text>
    </Paper>
  );
}

export function QueuesPanel() {
  const stats = useQueueStats();
  const depth = useQueueDepth();
  return (
    <Stack>
      <QueryState query={stats}>
        {(data) => (
          <Stack>
            <Title order={2} size="h5">
              Messages by state
            </Title>
            <SimpleGrid cols={{ base: 2, md: 5 }}>
              {['queued', 'delivering', 'acked', 'dead', 'expired'].map((state) => (
                <Figure key={state} label={state} value={data.messages[state] ?? 0} />
              ))}
            </SimpleGrid>
            <Title order={2} size="h5">
              Delivery jobs ({data.queue_count} queues, {data.in_flight} in flight)
            </Title>
            <SimpleGrid cols={{ base: 2, md: 5 }}>
              {(['waiting', 'active', 'delayed', 'failed', 'completed'] as const).map((state) => (
                <Figure key={state} label={state} value={data.queues[state]} />
              ))}
            </SimpleGrid>
          </Stack>
        )}
      </QueryState>
      <Title order={2} size="h5">
        Waiting per agent
      </Title>
      <QueryState query={depth}>
        {(data) => (
          <DataTable
            rows={data.agents}
            rowKey={(row) => row.agent_id}
            empty="No message is waiting."
            columns={[
              { key: 'agent', header: 'Agent', render: (row) => <Text ff="monospace" size="sm">{row.agent_id}</Text> },
              { key: 'depth', header: 'Waiting', render: (row) => row.depth.toLocaleString() },
            ]}
          />
        )}
      </QueryState>
    </Stack>
  );
}
