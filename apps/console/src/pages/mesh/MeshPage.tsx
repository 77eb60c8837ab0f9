import { Stack, Tabs } from '@mantine/core';
import { PageHeader } from '../../ui';
import { AgentsPanel } from './AgentsPanel';
import { DeadLettersPanel } from './DeadLettersPanel';
import { QueuesPanel } from './QueuesPanel';

/** The mesh as it runs: live agents with health and load, the delivery queues, dead letters. */
export function MeshPage() {
  return (
    <Stack>
      <PageHeader title="Mesh" description="Running agents with their health and load, the delivery queues and dead letters. Refreshed every 5 seconds." />
      <Tabs defaultValue="agents" keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="agents">Live agents</Tabs.Tab>
          <Tabs.Tab value="queues">Queues</Tabs.Tab>
          <Tabs.Tab value="dlq">Dead letters</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="agents" pt="md">
          <AgentsPanel />
        </Tabs.Panel>
        <Tabs.Panel value="queues" pt="md">
          <QueuesPanel />
        </Tabs.Panel>
        <Tabs.Panel value="dlq" pt="md">
          <DeadLettersPanel />
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}
