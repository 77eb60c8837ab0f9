import { Anchor, Badge, Button, Group, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { DataTable, PageHeader, QueryState } from '../../ui';
import { stateBadgeColor } from '../workflows/graph/node-states';
import { Lead, READABLE_ERRORS } from '../workflows/Lead';
import { useRunningRuns } from './runs-api';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `/runs`: the workers' runs in progress, and any run opened by its id. */
export function RunsPage() {
  const [offset, setOffset] = useState(0);
  const running = useRunningRuns(offset);
  const navigate = useNavigate();
  const [id, setId] = useState('');
  const open = (event: FormEvent) => {
    event.preventDefault();
    if (UUID.test(id.trim())) navigate(`/runs/${id.trim()}`);
  };
  return (
    <Stack style={READABLE_ERRORS}>
      <PageHeader title="Runs" description={<Lead>Durable DAG runs of the workers service: http, agent and database steps.</Lead>} />
      <Paper withBorder p="sm" component="form" onSubmit={open} aria-label="Open a run">
        <Group align="flex-end">
          <TextInput
            label="Open a run by id"
            placeholder="00000000-0000-0000-0000-000000000000"
            value={id}
            onChange={(event) => setId(event.currentTarget.value)}
            error={id && !UUID.test(id.trim()) ? 'A run id is a UUID' : undefined}
            w={420}
          />
          <Button type="submit" color="blue.8" disabled={!UUID.test(id.trim())}>
            Open
          </Button>
        </Group>
        <Text size="xs" c="gray.7" mt={4}>
          The id a run&apos;s start answered with (<code>workflow_id</code>): finished runs are not listed below.
        </Text>
      </Paper>
      <Paper withBorder p="sm" component="section" aria-label="Runs in progress">
        <Title order={2} size="h4" mb="xs">
          In progress
        </Title>
        <QueryState query={running}>
          {(page) => (
            <>
              <DataTable
                rows={page.items}
                rowKey={(row) => row.workflow_id}
                empty={<Lead>No run in progress.</Lead>}
                columns={[
                  {
                    key: 'name',
                    header: 'Definition',
                    render: (row) => (
                      <Anchor component={Link} to={`/runs/${row.workflow_id}`} size="sm" fw={600}>
                        {row.name} v{row.version}
                      </Anchor>
                    ),
                  },
                  {
                    key: 'state',
                    header: 'State',
                    render: (row) => (
                      <Badge color={stateBadgeColor(row.state)} autoContrast>
                        {row.state}
                      </Badge>
                    ),
                  },
                  { key: 'created', header: 'Created', render: (row) => new Date(row.created_at).toLocaleString() },
                  { key: 'owner', header: 'Owner', render: (row) => <Text size="sm">{row.owner ?? '–'}</Text> },
                  {
                    key: 'id',
                    header: 'Run id',
                    render: (row) => (
                      <Text size="xs" ff="monospace">
                        {row.workflow_id}
                      </Text>
                    ),
                  },
                ]}
              />
              {page.total > page.limit && (
                <Group justify="flex-end" mt="xs">
                  <Button size="compact-sm" variant="default" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - page.limit))}>
                    Previous
                  </Button>
                  <Button size="compact-sm" variant="default" disabled={offset + page.limit >= page.total} onClick={() => setOffset(offset + page.limit)}>
                    Next
                  </Button>
                </Group>
              )}
            </>
          )}
        </QueryState>
      </Paper>
    </Stack>
  );
}
