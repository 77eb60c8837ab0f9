import { Anchor, Button, Group, Paper, Stack, TextInput, Title } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { DataTable, PageHeader, QueryState } from '../../../ui';
import { useProjects, type SpanCounts } from '../api';
import { projectHref, traceHref } from '../links';

type ProjectCount = SpanCounts['projects'][number];

/** `/traces`: the projects that hold spans, and a trace opened by its id. */
export function ProjectsPage() {
  const query = useProjects();
  return (
    <Stack>
      <PageHeader title="Traces" description="Spans the platform and its agents sent, by project. Open a project to search its spans." />
      <OpenTrace />
      <section aria-labelledby="projects-title">
        <Title order={2} size="h4" id="projects-title" mb="xs">
          Projects
        </Title>
        <QueryState query={query}>
          {(counts) => (
            <DataTable<ProjectCount>
              rows={counts.projects}
              rowKey={(row) => row.project}
              empty="No spans yet: send OTLP to the tracing service, or run something on the platform."
              columns={[
                {
                  key: 'project',
                  header: 'Project',
                  render: (row) => (
                    <Anchor component={Link} to={projectHref(row.project)}>
                      {row.project}
                    </Anchor>
                  ),
                },
                { key: 'spans', header: 'Spans', render: (row) => row.spans.toLocaleString('en') },
                { key: 'traces', header: 'Traces', render: (row) => row.traces.toLocaleString('en') },
              ]}
            />
          )}
        </QueryState>
      </section>
    </Stack>
  );
}

function OpenTrace() {
  const navigate = useNavigate();
  const [value, setValue] = useState('');
  const traceId = value.trim().toLowerCase();
  const valid = /^[0-9a-f]{32}$/.test(traceId);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (valid) navigate(traceHref(traceId));
  };
  return (
    <Paper withBorder p="sm" component="form" onSubmit={submit} aria-label="Open a trace">
      <Group align="flex-end">
        <TextInput
          label="Trace id"
          placeholder="32 hex digits"
          value={value}
          onChange={(event) => setValue(event.currentTarget.value)}
          error={value && !valid ? 'A trace id is 32 hex digits' : undefined}
          style={{ flex: 1 }}
          ff="monospace"
        />
        <Button type="submit" disabled={!valid}>
          Open trace
        </Button>
      </Group>
    </Paper>
  );
}
