import { Badge, Button, Drawer, Group, SegmentedControl, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { DataTable, QueryState, type Column } from '../../ui';
import { useHealthHistory, useLoad, useMeshAgents, type MeshAgent } from './mesh-api';

const healthColor: Record<string, string> = { passing: 'teal', warning: 'orange', critical: 'red' };
const since = (at: string | null) => {
  if (!at) return '—';
  const seconds = Math.max(0, Math.round((Date.now() - Date.parse(at)) / 1000));
  return seconds < 120 ? `${seconds} s ago` : seconds < 7200 ? `${Math.round(seconds / 60)} min ago` : new Date(at).toLocaleString();
};

export function AgentsPanel() {
  const [status, setStatus] = useState('all');
  const agents = useMeshAgents(status === 'all' ? null : status);
  const load = useLoad();
  const [open, setOpen] = useState<MeshAgent>();

  const columns: Column<MeshAgent>[] = [
    {
      key: 'name',
      header: 'Agent',
      render: (agent) => (
        <Stack gap={0}>
          <Text fw={500}>
            {agent.namespace}/{agent.name}
          </Text>
          <Text size="xs" c="dimmed" ff="monospace">
            {agent.id}
          </Text>
        </Stack>
      ),
    },
    {
      key: 'health',
      header: 'Health',
      render: (agent) => (
        <Group gap={4}>
          <Badge variant="light" color={healthColor[agent.status]}>
            {agent.status}
          </Badge>
          {agent.ejected && (
            <Badge color="red" variant="outline">
              ejected
            </Badge>
          )}
        </Group>
      ),
    },
    {
      key: 'load',
      header: 'Load',
      render: (agent) => {
        const entry = load.data?.get(agent.id);
        return entry ? `${entry.outstanding} in flight · ${Math.round(entry.latency)} ms` : '—';
      },
    },
    { key: 'capabilities', header: 'Capabilities', render: (agent) => agent.capabilities.join(', ') || '—' },
    { key: 'check', header: 'Check', render: (agent) => agent.check.type },
    { key: 'seen', header: 'Last heartbeat', render: (agent) => since(agent.last_heartbeat_at ?? agent.last_check_at) },
    {
      key: 'history',
      header: 'History',
      render: (agent) => (
        <Button size="xs" variant="subtle" onClick={() => setOpen(agent)} aria-label={`Health history of ${agent.namespace}/${agent.name}`}>
          Checks
        </Button>
      ),
    },
  ];

  return (
    <Stack>
      <SegmentedControl
        aria-label="Health"
        value={status}
        onChange={setStatus}
        data={[
          { value: 'all', label: 'All' },
          { value: 'passing', label: 'Passing' },
          { value: 'warning', label: 'Warning' },
          { value: 'critical', label: 'Critical' },
        ]}
        w={400}
      />
      <QueryState query={agents}>
        {(data) => (
          <Stack gap="xs">
            <Text size="sm" c="dimmed">
              {data.total} {data.total === 1 ? 'agent' : 'agents'}
            </Text>
            <DataTable rows={data.agents} columns={columns} rowKey={(agent) => agent.id} empty="No agent is registered with the mesh." />
          </Stack>
        )}
      </QueryState>
      <Drawer opened={open !== undefined} onClose={() => setOpen(undefined)} position="right" size="lg" title={open ? `Health checks of ${open.namespace}/${open.name}` : ''}>
        {open && <HealthHistory agentId={open.id} />}
      </Drawer>
    </Stack>
  );
}

function HealthHistory({ agentId }: { agentId: string }) {
  const history = useHealthHistory(agentId);
  return (
    <QueryState query={history}>
      {(data) => (
        <DataTable
          rows={data.checks}
          rowKey={(check) => `${check.checked_at}-${check.kind}`}
          empty="No check recorded yet."
          columns={[
            { key: 'at', header: 'Time', render: (check) => new Date(check.checked_at).toLocaleTimeString() },
            { key: 'kind', header: 'Kind', render: (check) => check.kind },
            { key: 'status', header: 'Status', render: (check) => check.status },
            { key: 'latency', header: 'Latency', render: (check) => (check.latency_ms === null ? '—' : `${Math.round(check.latency_ms)} ms`) },
            { key: 'output', header: 'Output', render: (check) => check.output ?? '' },
          ]}
        />
      )}
    </QueryState>
  );
}
