import { Button, Group, MultiSelect, Paper, Select, Stack, TextInput } from '@mantine/core';
import { tracing } from '@platform/contracts';
import { useState, type FormEvent } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { ApiErrorAlert, PageHeader, QueryState } from '../../ui';
import { useDatasets, useStartEvaluation } from './api';

/** `/evaluations/new`: pick a dataset and metrics, start the evaluation, land on its results. */
export function NewEvaluationPage() {
  const [params] = useSearchParams();
  const datasets = useDatasets();
  const start = useStartEvaluation();
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [datasetId, setDatasetId] = useState<string | null>(params.get('dataset'));
  const [metrics, setMetrics] = useState<string[]>(['exact_match']);
  const body = { name: name.trim(), dataset_id: datasetId ?? '', metrics };
  const checked = tracing.CreateEvaluation.safeParse(body);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!checked.success) return;
    start.mutate(checked.data, { onSuccess: (evaluation) => navigate(`/evaluations/${evaluation.id}`) });
  };

  return (
    <Stack>
      <PageHeader title="New evaluation" description="Each example of the dataset is scored by every metric; results appear as they finish." />
      <QueryState query={datasets}>
        {(page) => (
          <Paper withBorder p="md" component="form" onSubmit={submit} aria-label="Start an evaluation" maw={720}>
            <Stack>
              <TextInput label="Name" required value={name} onChange={(e) => setName(e.currentTarget.value)} maxLength={200} />
              <Select
                label="Dataset"
                required
                searchable
                placeholder={page.datasets.length ? 'Pick a dataset' : 'No dataset yet'}
                data={page.datasets.map((dataset) => ({ value: dataset.id, label: `${dataset.name} v${dataset.version} (${dataset.example_count} examples)` }))}
                value={datasetId}
                onChange={setDatasetId}
              />
              <MultiSelect
                label="Metrics"
                required
                description="Scores null where a metric cannot apply (no expected output, no trace)"
                data={tracing.MetricName.options.map((metric) => ({ value: metric, label: metric.replace(/_/g, ' ') }))}
                value={metrics}
                onChange={setMetrics}
              />
              <ApiErrorAlert error={start.error} />
              <Group>
                <Button type="submit" disabled={!checked.success} loading={start.isPending}>
                  Start evaluation
                </Button>
              </Group>
            </Stack>
          </Paper>
        )}
      </QueryState>
    </Stack>
  );
}
