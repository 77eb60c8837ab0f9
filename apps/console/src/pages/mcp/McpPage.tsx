import { Anchor, Badge, Stack, Text } from '@mantine/core';
import type { mcpRegistry } from '@platform/contracts';
import { Link } from 'react-router';
import { DataTable, PageHeader, QueryState, type Column } from '../../ui';
import { healthColor, percent, statusColor } from './health';
import { useConnections } from './mcp-api';

const columns: Column<mcpRegistry.ConnectionListItem>[] = [
  {
    key: 'name',
    header: 'Connection',
    render: (connection) => (
      <Stack gap={0}>
        <Anchor component={Link} to={`/mcp/${connection.id}`} fw={500}>
          {connection.name}
        </Anchor>
        <Text size="xs" c="dimmed" ff="monospace" lineClamp={1}>
          {connection.endpoint.url ?? [connection.endpoint.command, ...(connection.endpoint.args ?? [])].join(' ')}
        </Text>
      </Stack>
    ),
  },
  { key: 'protocol', header: 'Protocol', render: (connection) => connection.protocol },
  {
    key: 'status',
    header: 'Status',
    render: (connection) => (
      <Badge variant="light" color={statusColor[connection.status]}>
        {connection.status}
      </Badge>
    ),
  },
  {
    key: 'health',
    header: 'Health',
    render: (connection) => (
      <Badge variant="dot" color={healthColor[connection.health.status]}>
        {connection.health.status}
      </Badge>
    ),
  },
  { key: 'errors', header: 'Error rate', render: (connection) => percent(connection.health.errorRate) },
  { key: 'tools', header: 'Tools', render: (connection) => connection.capabilities.length },
  { key: 'checked', header: 'Last check', render: (connection) => (connection.health.lastCheck ? new Date(connection.health.lastCheck).toLocaleString() : '—') },
];

/** MCP servers registered with mcp-registry that the user may read, with their health. */
export function McpPage() {
  const connections = useConnections();
  return (
    <Stack>
      <PageHeader title="MCP servers" description="Connections to MCP servers, their health, and their tools: open one to call a tool." />
      <QueryState query={connections}>
        {(data) => <DataTable rows={data.connections} columns={columns} rowKey={(connection) => connection.id} empty="No MCP server is registered." />}
      </QueryState>
    </Stack>
  );
}
