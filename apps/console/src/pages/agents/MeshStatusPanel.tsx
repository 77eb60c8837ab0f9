import { Badge, Text } from '@mantine/core';
import type { mesh } from '@platform/contracts';
import type { z } from 'zod';
import { DataTable, QueryState, type Column } from '../../ui';
import { useMeshInstances } from './agents-api';

type MeshAgent = z.infer<typeof mesh.MeshAgent>;
export const healthColor: Record<string, string> = { passing: 'teal', warning: 'orange', critical: 'red' };

const columns: Column<MeshAgent>[] = [
  { key: 'id', header: 'Instance', render: (agent) => <Text ff="monospace" size="xs">{agent.id}</Text> },
  {
    key: 'status',
    header: 'Health',
    render: (agent) => (
      <Badge color={agent.ejected ? 'red' : healthColor[agent.status]} variant="light">
        {agent.ejected ? 'ejected' : agent.status}
      </Badge>
    ),
  },
  { key: 'endpoint', header: 'Endpoint', render: (agent) => agent.endpoint ?? '—' },
  { key: 'latency', header: 'Latency', render: (agent) => (agent.latency_ms === null ? '—' : `${Math.round(agent.latency_ms)} ms`) },
  { key: 'subscribed', header: 'Subscribed', render: (agent) => (agent.subscribed ? 'yes' : 'no') },
  { key: 'seen', header: 'Last check', render: (agent) => (agent.last_check_at ? new Date(agent.last_check_at).toLocaleTimeString() : '—') },
];

/** The agent's instances registered with the mesh, refreshed every few seconds. */
export function MeshStatusPanel({ namespace, name }: { namespace: string; name: string }) {
  const instances = useMeshInstances(namespace, name);
  return (
    <QueryState query={instances}>
      {(agents) => <DataTable rows={agents} columns={columns} rowKey={(agent) => agent.id} empty="Not registered with the mesh." caption="Live: refreshed every 5 seconds" />}
    </QueryState>
  );
}
