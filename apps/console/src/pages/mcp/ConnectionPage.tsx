import { Accordion, Anchor, Badge, Button, Group, Paper, SimpleGrid, Stack, Tabs, Text } from '@mantine/core';
import { Link, useParams } from 'react-router';
import { ApiErrorAlert, DataTable, JsonView, PageHeader, QueryState } from '../../ui';
import { duration, healthColor, percent, statusColor } from './health';
import { useConnection, useHealthCheck, useHealthHistory, type ConnectionDetail, type HealthEntry } from './mcp-api';
import { ToolCallForm } from './ToolCallForm';

function Figure({ label, value }: { label: string; value: string | number }) {
  return (
    <Paper withBorder p="xs">
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text fw={600}>{value}</Text>
    </Paper>
  );
}

/** One MCP connection: its health (figures and the checks as they happen) and its tools, each callable. */
export function ConnectionPage() {
  const { connectionId = '' } = useParams();
  const connection = useConnection(connectionId);
  return (
    <Stack>
      <Anchor component={Link} to="/mcp" size="sm">
        ← MCP servers
      </Anchor>
      <QueryState query={connection}>{(data) => <ConnectionView connection={data} />}</QueryState>
    </Stack>
  );
}

function ConnectionView({ connection }: { connection: ConnectionDetail }) {
  return (
    <Stack>
      <PageHeader
        title={connection.name}
        description={connection.endpoint.url ?? [connection.endpoint.command, ...(connection.endpoint.args ?? [])].join(' ')}
      />
      <Group gap="xs">
        <Badge variant="light" color={statusColor[connection.status]}>
          {connection.status}
        </Badge>
        <Badge variant="dot" color={healthColor[connection.health.status]}>
          {connection.health.status}
        </Badge>
        <Badge variant="outline">{connection.protocol}</Badge>
        {connection.team && <Badge variant="outline">team {connection.team}</Badge>}
      </Group>
      <Tabs defaultValue="tools" keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="tools">Tools ({connection.capabilities.length})</Tabs.Tab>
          <Tabs.Tab value="health">Health</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="tools" pt="md">
          <ToolsPanel connection={connection} />
        </Tabs.Panel>
        <Tabs.Panel value="health" pt="md">
          <HealthPanel connection={connection} />
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}

function ToolsPanel({ connection }: { connection: ConnectionDetail }) {
  if (connection.capabilities.length === 0)
    return (
      <Text size="sm" c="dimmed">
        The server lists no tool (yet: tools are read at its first health check).
      </Text>
    );
  return (
    <Accordion variant="separated" chevronPosition="left">
      {connection.capabilities.map((tool) => (
        <Accordion.Item key={tool.name} value={tool.name}>
          <Accordion.Control>
            <Stack gap={0}>
              <Text fw={600} ff="monospace">
                {tool.name}
              </Text>
              <Text size="xs" c="dimmed" lineClamp={1}>
                {tool.description}
              </Text>
            </Stack>
          </Accordion.Control>
          <Accordion.Panel>
            <SimpleGrid cols={{ base: 1, lg: 2 }}>
              <ToolCallForm connectionId={connection.id} tool={tool.name} schema={tool.schema} />
              <Stack gap={4}>
                <Text size="sm" fw={500}>
                  Input schema
                </Text>
                <JsonView value={tool.schema} maxHeight={360} />
              </Stack>
            </SimpleGrid>
          </Accordion.Panel>
        </Accordion.Item>
      ))}
    </Accordion>
  );
}

function HealthPanel({ connection }: { connection: ConnectionDetail }) {
  const history = useHealthHistory(connection.id);
  const check = useHealthCheck(connection.id);
  const { health } = connection;
  return (
    <Stack>
      <SimpleGrid cols={{ base: 2, md: 3, lg: 6 }}>
        <Figure label="Checks" value={health.checksPerformed} />
        <Figure label="Failed checks" value={health.failedChecks} />
        <Figure label="Error rate" value={percent(health.errorRate)} />
        <Figure label="Uptime" value={duration(health.uptime)} />
        <Figure label="Last response" value={health.responseTime === null ? '—' : `${Math.round(health.responseTime)} ms`} />
        <Figure label="Check interval" value={`${connection.healthCheck.interval} s`} />
      </SimpleGrid>
      {health.lastError && (
        <Text size="sm" c="red.8">
          Last error: {health.lastError}
        </Text>
      )}
      <Group>
        <Button
          onClick={() =>
            check.mutate(undefined, {
              // With the stream open the check arrives on it; without, it is recorded from the answer.
              onSuccess: (result) =>
                !history.live && history.add({ at: result.health.timestamp, status: result.health.status, responseTime: result.health.responseTime, error: result.error }),
            })
          }
          loading={check.isPending}
        >
          Check now
        </Button>
        <Badge variant="dot" color={history.live ? 'teal' : 'gray'}>
          {history.live ? 'live' : 'not live'}
        </Badge>
      </Group>
      {check.isError && <ApiErrorAlert error={check.error} title="The check failed" />}
      <DataTable<HealthEntry>
        caption="Health checks since this page opened, newest first"
        rows={history.entries}
        rowKey={(entry) => `${entry.at}-${entry.status}`}
        empty="No check yet since the page opened: the next scheduled one appears here, or check now."
        columns={[
          { key: 'at', header: 'Time', render: (entry) => new Date(entry.at).toLocaleTimeString() },
          {
            key: 'status',
            header: 'Health',
            render: (entry) => (
              <Badge variant="light" color={healthColor[entry.status]}>
                {entry.status}
              </Badge>
            ),
          },
          { key: 'time', header: 'Response time', render: (entry) => `${Math.round(entry.responseTime)} ms` },
          { key: 'error', header: 'Error', render: (entry) => entry.error ?? '' },
        ]}
      />
    </Stack>
  );
}
