import { Anchor, Button, Group, Stack, Text } from '@mantine/core';
import { Link } from 'react-router';
import { DataTable, PageHeader, QueryState } from '../../ui';
import { useEvaluations, type Evaluation } from './api';
import { metricName } from './results';
import { StatusBadge } from './StatusBadge';

/** `/evaluations`: every evaluation the user may read, newest first. */
export function EvaluationsPage() {
  const query = useEvaluations({ poll: true });
  return (
    <Stack>
      <PageHeader
        title="Evaluations"
        description="Datasets scored by metrics, one job per example."
        actions={
          <>
            <Button component={Link} to="/evaluations/datasets" variant="default">
              Datasets
            </Button>
            <Button component={Link} to="/evaluations/new">
              New evaluation
            </Button>
          </>
        }
      />
      <QueryState query={query}>
        {(page) => (
          <DataTable<Evaluation>
            rows={page.evaluations}
            rowKey={(evaluation) => evaluation.id}
            empty="No evaluation yet: create a dataset, then start one."
            caption="Evaluations"
            columns={[
              {
                key: 'name',
                header: 'Name',
                render: (evaluation) => (
                  <Anchor component={Link} to={`/evaluations/${evaluation.id}`}>
                    {evaluation.name}
                  </Anchor>
                ),
              },
              { key: 'status', header: 'Status', render: (evaluation) => <StatusBadge status={evaluation.status} /> },
              {
                key: 'progress',
                header: 'Examples',
                render: (evaluation) => (
                  <Text size="sm">
                    {evaluation.counts.succeeded + evaluation.counts.failed} / {evaluation.counts.total}
                    {evaluation.counts.failed ? `, ${evaluation.counts.failed} failed` : ''}
                  </Text>
                ),
              },
              {
                key: 'summary',
                header: 'Scores',
                render: (evaluation) => (
                  <Group gap={8}>
                    {evaluation.metrics.map(metricName).map((metric) => (
                      <Text key={metric} size="sm">
                        {metric}: <b>{formatScore(evaluation.summary[metric])}</b>
                      </Text>
                    ))}
                  </Group>
                ),
              },
              { key: 'created', header: 'Started', render: (evaluation) => new Date(evaluation.created_at).toLocaleString('en') },
            ]}
          />
        )}
      </QueryState>
    </Stack>
  );
}

export function formatScore(score: number | null | undefined): string {
  if (score === null || score === undefined) return '–';
  return Number.isInteger(score) ? String(score) : score.toFixed(3);
}
