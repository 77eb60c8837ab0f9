import '@mantine/charts/styles.css';
import { BarChart } from '@mantine/charts';
import { Anchor, Button, Group, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { DataTable, PageHeader, QueryState } from '../../ui';
import { traceHref } from '../traces/links';
import { RESULTS_PAGE_SIZE, useEvaluationResults, useEvaluations } from './api';
import { formatScore } from './EvaluationsPage';
import { isRatioMetric, metricName, preview, scoreSeries, summariseScores, type EvaluationResult } from './results';
import { StatusBadge } from './StatusBadge';

const CHART_COLORS = ['blue.7', 'teal.7', 'grape.7', 'orange.7', 'indigo.7', 'pink.7', 'cyan.8'];

/** `/evaluations/:evaluationId`: an evaluation's scores as a chart and its results as a table. */
export function EvaluationPage() {
  const { evaluationId = '' } = useParams();
  const [offset, setOffset] = useState(0);
  const evaluations = useEvaluations();
  const results = useEvaluationResults(evaluationId, offset);
  const evaluation = evaluations.data?.evaluations.find((candidate) => candidate.id === evaluationId);

  return (
    <Stack>
      <PageHeader
        title={evaluation?.name ?? 'Evaluation'}
        description={evaluation ? <>Started {new Date(evaluation.created_at).toLocaleString('en')}</> : evaluationId}
        actions={
          <Anchor component={Link} to="/evaluations">
            All evaluations
          </Anchor>
        }
      />
      <QueryState query={results}>
        {(page) => {
          const metrics = evaluation ? evaluation.metrics.map(metricName) : [...new Set(page.results.flatMap((result) => Object.keys(result.scores ?? {})))];
          const summary = summariseScores(metrics, page.results);
          const ratios = metrics.filter(isRatioMetric);
          const done = page.results.filter((result) => result.status === 'succeeded' || result.status === 'failed').length;
          return (
            <Stack>
              <Group gap="lg" data-testid="evaluation-summary">
                {evaluation && <StatusBadge status={evaluation.status} />}
                <Text size="sm">
                  {evaluation
                    ? `${evaluation.counts.succeeded + evaluation.counts.failed} of ${evaluation.counts.total} examples done`
                    : `${done} of ${page.total} examples done`}
                  {evaluation?.counts.failed ? `, ${evaluation.counts.failed} failed` : ''}
                </Text>
                {summary.map((metric) => (
                  <Text key={metric.metric} size="sm" data-testid={`score-${metric.metric}`}>
                    {metric.metric}: <b>{formatScore(evaluation?.summary[metric.metric] ?? metric.mean)}</b>
                  </Text>
                ))}
              </Group>
              {ratios.length > 0 && (
                <SimpleGrid cols={{ base: 1, lg: 2 }}>
                  <Paper withBorder p="sm" role="figure" aria-label="Mean score per metric">
                    <Title order={2} size="h5" mb="xs">
                      Mean score per metric
                    </Title>
                    <BarChart
                      h={220}
                      data={summary.filter((metric) => isRatioMetric(metric.metric)).map((metric) => ({ metric: metric.metric, mean: metric.mean ?? 0 }))}
                      dataKey="metric"
                      series={[{ name: 'mean', color: 'blue.7', label: 'mean score' }]}
                      yAxisProps={{ domain: [0, 1] }}
                    />
                  </Paper>
                  <Paper withBorder p="sm" role="figure" aria-label="Scores per example">
                    <Title order={2} size="h5" mb="xs">
                      Scores per example{page.total > page.results.length ? ` (${offset + 1}–${offset + page.results.length})` : ''}
                    </Title>
                    <BarChart
                      h={220}
                      data={scoreSeries(ratios, page.results)}
                      dataKey="example"
                      series={ratios.map((metric, index) => ({ name: metric, color: CHART_COLORS[index % CHART_COLORS.length] }))}
                      yAxisProps={{ domain: [0, 1] }}
                      withLegend
                    />
                  </Paper>
                </SimpleGrid>
              )}
              <DataTable<EvaluationResult>
                rows={page.results}
                rowKey={(result) => result.index}
                caption="Results per example"
                columns={[
                  { key: 'index', header: '#', render: (result) => result.index + 1, width: 50 },
                  { key: 'status', header: 'Status', render: (result) => <StatusBadge status={result.status} /> },
                  { key: 'input', header: 'Input', render: (result) => preview(result.input, 80) },
                  { key: 'expected', header: 'Expected', render: (result) => preview(result.expected_output, 80) },
                  { key: 'output', header: 'Output', render: (result) => preview(result.output, 80) },
                  ...metrics.map((metric) => ({
                    key: `score:${metric}`,
                    header: metric,
                    render: (result: EvaluationResult) => <span data-testid="result-score">{formatScore(result.scores?.[metric])}</span>,
                  })),
                  {
                    key: 'more',
                    header: 'Trace / error',
                    render: (result) =>
                      result.error ? (
                        <Text size="sm" c="red.9">
                          {preview(result.error, 100)}
                        </Text>
                      ) : result.trace_id ? (
                        <Anchor component={Link} to={traceHref(result.trace_id)} size="sm">
                          trace
                        </Anchor>
                      ) : (
                        ''
                      ),
                  },
                ]}
              />
              {page.total > RESULTS_PAGE_SIZE && (
                <Group>
                  <Button variant="default" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - RESULTS_PAGE_SIZE))}>
                    Previous
                  </Button>
                  <Text size="sm">
                    {offset + 1}–{offset + page.results.length} of {page.total}
                  </Text>
                  <Button variant="default" disabled={offset + RESULTS_PAGE_SIZE >= page.total} onClick={() => setOffset(offset + RESULTS_PAGE_SIZE)}>
                    Next
                  </Button>
                </Group>
              )}
            </Stack>
          );
        }}
      </QueryState>
    </Stack>
  );
}
