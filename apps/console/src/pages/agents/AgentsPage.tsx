import { Anchor, Badge, Button, Group, Pagination, Select, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { registry } from '@platform/contracts';
import { useState } from 'react';
import { Link } from 'react-router';
import { DataTable, PageHeader, QueryState, type Column } from '../../ui';
import { NO_FILTERS, PAGE_SIZE, useAgentSearch, type AgentFilters } from './agents-api';
import { StatusBadge } from './StatusBadge';

type Row = registry.Agent & { rank?: number };

const columns: Column<Row>[] = [
  {
    key: 'name',
    header: 'Agent',
    render: (agent) => (
      <Stack gap={0}>
        <Anchor component={Link} to={`/agents/${agent.namespace}/${agent.name}`} fw={500}>
          {agent.namespace}/{agent.name}
        </Anchor>
        {(agent.displayName ?? agent.description) && (
          <Text size="xs" c="dimmed" lineClamp={1}>
            {agent.displayName ?? agent.description}
          </Text>
        )}
      </Stack>
    ),
  },
  { key: 'version', header: 'Latest', render: (agent) => agent.latestVersion ?? '—' },
  { key: 'status', header: 'Status', render: (agent) => <StatusBadge status={agent.status} /> },
  { key: 'kind', header: 'Kind', render: (agent) => [agent.kind, agent.agentKind].filter(Boolean).join(' · ') || '—' },
  { key: 'tier', header: 'Tier', render: (agent) => agent.tier ?? '—' },
  {
    key: 'capabilities',
    header: 'Capabilities',
    render: (agent) => (
      <Group gap={4}>
        {agent.capabilities.slice(0, 4).map((capability) => (
          <Badge key={capability} variant="light" size="sm">
            {capability}
          </Badge>
        ))}
        {agent.capabilities.length > 4 && <Text size="xs">+{agent.capabilities.length - 4}</Text>}
      </Group>
    ),
  },
  {
    key: 'certified',
    header: 'Certified',
    render: (agent) =>
      agent.certified ? (
        <Badge color="teal" variant="light">
          {agent.certifiedVersion ?? 'yes'}
        </Badge>
      ) : (
        <Text size="sm" c="dimmed">
          no
        </Text>
      ),
  },
];

const options = (values: readonly string[]) => values.map((value) => ({ value, label: value }));

/** The registry's agents: full-text search with every filter the registry's search takes. */
export function AgentsPage() {
  const [draft, setDraft] = useState<AgentFilters>(NO_FILTERS);
  const [filters, setFilters] = useState<AgentFilters>(NO_FILTERS);
  const [page, setPage] = useState(1);
  const query = useAgentSearch(filters, (page - 1) * PAGE_SIZE);
  const set = (key: keyof AgentFilters) => (value: string | null) => setDraft((current) => ({ ...current, [key]: value ?? '' }));

  return (
    <Stack>
      <PageHeader
        title="Agents"
        description="Agents published to the registry: search, open one for its versions, manifest, certification and mesh status."
        actions={
          <Button component={Link} to="/agents/publish">
            Publish an agent
          </Button>
        }
      />
      <form
        role="search"
        aria-label="Search agents"
        onSubmit={(event) => {
          event.preventDefault();
          setPage(1);
          setFilters(draft);
        }}
      >
        <Stack gap="xs">
          <Group align="flex-end">
            <TextInput
              label="Search"
              placeholder="Name, description, tags, capabilities…"
              value={draft.q}
              onChange={(event) => set('q')(event.currentTarget.value)}
              style={{ flex: 1 }}
            />
            <Button type="submit">Search</Button>
            <Button
              variant="subtle"
              onClick={() => {
                setDraft(NO_FILTERS);
                setFilters(NO_FILTERS);
                setPage(1);
              }}
            >
              Clear
            </Button>
          </Group>
          <SimpleGrid cols={{ base: 2, md: 4, xl: 7 }} spacing="xs">
            <TextInput label="Namespace" value={draft.namespace} onChange={(event) => set('namespace')(event.currentTarget.value)} />
            <TextInput label="Capability" placeholder="network-outbound" value={draft.capability} onChange={(event) => set('capability')(event.currentTarget.value)} />
            <TextInput label="Compliance" placeholder="soc2" value={draft.compliance} onChange={(event) => set('compliance')(event.currentTarget.value)} />
            <TextInput label="Agent kind" placeholder="assistant" value={draft.agentKind} onChange={(event) => set('agentKind')(event.currentTarget.value)} />
            <Select label="Manifest kind" clearable data={options(registry.ManifestKind.options)} value={draft.kind || null} onChange={set('kind')} />
            <Select label="Security tier" clearable data={options(registry.SecurityTier.options)} value={draft.tier || null} onChange={set('tier')} />
            <Select
              label="Certified"
              clearable
              data={[
                { value: 'true', label: 'Certified' },
                { value: 'false', label: 'Not certified' },
              ]}
              value={draft.certified || null}
              onChange={set('certified')}
            />
          </SimpleGrid>
        </Stack>
      </form>
      <QueryState query={query}>
        {(data) => (
          <Stack gap="xs">
            <Text size="sm" c="dimmed" aria-live="polite">
              {data.total} {data.total === 1 ? 'agent' : 'agents'}
              {'query' in data ? ` matching “${data.query}”` : ''}
            </Text>
            <DataTable rows={data.items as Row[]} columns={columns} rowKey={(agent) => `${agent.namespace}/${agent.name}`} empty="No agent matches." />
            {data.total > PAGE_SIZE && <Pagination total={Math.ceil(data.total / PAGE_SIZE)} value={page} onChange={setPage} aria-label="Pages of agents" />}
          </Stack>
        )}
      </QueryState>
    </Stack>
  );
}
