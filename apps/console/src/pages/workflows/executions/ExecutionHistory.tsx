import { Anchor, Badge, Button, Group, Paper, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { Link } from 'react-router';
import { DataTable, QueryState } from '../../../ui';
import { useExecutionHistory } from '../api/workflows-api';
import { Lead } from '../Lead';
import { formatDuration, stateBadgeColor } from '../graph/node-states';

/** A workflow's runs, newest first; each opens (and replays) on the canvas. */
export function ExecutionHistory({ workflowId }: { workflowId: string }) {
  const [offset, setOffset] = useState(0);
  const history = useExecutionHistory(workflowId, offset);
  return (
    <Paper withBorder p="sm" component="section" aria-label="Execution history">
      <Title order={2} size="h4" mb="xs">
        Execution history
      </Title>
      <QueryState query={history}>
        {(page) => (
          <>
            <DataTable
              rows={page.executions}
              rowKey={(row) => row.executionId}
              empty={<Lead>No run yet: press Run.</Lead>}
              columns={[
                {
                  key: 'started',
                  header: 'Started',
                  render: (row) => (
                    <Anchor component={Link} to={`/workflows/${workflowId}/executions/${row.executionId}`} size="sm">
                      {new Date(row.startedAt).toLocaleString()}
                    </Anchor>
                  ),
                },
                {
                  key: 'status',
                  header: 'Status',
                  render: (row) => (
                    <Badge color={stateBadgeColor(row.status)} autoContrast>
                      {row.status}
                    </Badge>
                  ),
                },
                { key: 'duration', header: 'Duration', render: (row) => formatDuration(row.duration) },
                { key: 'owner', header: 'Started by', render: (row) => <Text size="sm">{row.owner ?? '–'}</Text> },
                {
                  key: 'replay',
                  header: <span className="sr-only">Replay</span>,
                  render: (row) => (
                    <Button component={Link} to={`/workflows/${workflowId}/executions/${row.executionId}`} size="compact-xs" variant="default">
                      Replay
                    </Button>
                  ),
                },
              ]}
            />
            {page.total > page.limit && (
              <Group justify="flex-end" mt="xs">
                <Text size="xs" c="gray.7">
                  {offset + 1}–{Math.min(offset + page.limit, page.total)} of {page.total}
                </Text>
                <Button size="compact-xs" variant="default" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - page.limit))}>
                  Newer
                </Button>
                <Button size="compact-xs" variant="default" disabled={offset + page.limit >= page.total} onClick={() => setOffset(offset + page.limit)}>
                  Older
                </Button>
              </Group>
            )}
          </>
        )}
      </QueryState>
    </Paper>
  );
}
