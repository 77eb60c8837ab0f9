import { Anchor, Badge, Button, Group, Text } from '@mantine/core';
import { useState } from 'react';
import { Link } from 'react-router';
import { DataTable, PageHeader, QueryState } from '../../../ui';
import { useCatalog } from '../api/workflows-api';
import { Lead } from '../Lead';

const PAGE = 50;

/** `/workflows`: the workflows the user may read, newest first. */
export function WorkflowsPage() {
  const [offset, setOffset] = useState(0);
  const catalog = useCatalog(offset, PAGE);
  return (
    <>
      <PageHeader
        title="Workflows"
        description={<Lead>Visual workflows of the workflow engine: graphs of components, run on the platform.</Lead>}
        actions={
          <Button component={Link} to="/workflows/new" color="blue.8">
            New workflow
          </Button>
        }
      />
      <QueryState query={catalog}>
        {(page) => (
          <>
            <DataTable
              rows={page.workflows}
              rowKey={(row) => row.id}
              caption={`${page.total} workflow${page.total === 1 ? '' : 's'}`}
              empty={<Lead>No workflow yet: create one.</Lead>}
              columns={[
                {
                  key: 'name',
                  header: 'Name',
                  render: (row) => (
                    <Anchor component={Link} to={`/workflows/${row.id}`} fw={600} size="sm">
                      {row.name}
                    </Anchor>
                  ),
                },
                { key: 'category', header: 'Category', render: (row) => row.category },
                { key: 'components', header: 'Nodes', render: (row) => row.components },
                { key: 'complexity', header: 'Complexity', render: (row) => <Badge variant="light">{row.complexity}</Badge> },
                { key: 'estimate', header: 'Typical run', render: (row) => `${row.estimatedDuration} s` },
                {
                  key: 'owner',
                  header: 'Owner',
                  render: (row) => <Text size="sm">{row.team ? `${row.owner ?? '–'} · team ${row.team}` : (row.owner ?? '–')}</Text>,
                },
              ]}
            />
            {page.total > PAGE && (
              <Group justify="flex-end" mt="xs">
                <Button size="compact-sm" variant="default" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
                  Previous
                </Button>
                <Button size="compact-sm" variant="default" disabled={offset + PAGE >= page.total} onClick={() => setOffset(offset + PAGE)}>
                  Next
                </Button>
              </Group>
            )}
          </>
        )}
      </QueryState>
    </>
  );
}
