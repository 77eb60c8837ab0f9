import { Anchor, Button, Group, Stack, Text } from '@mantine/core';
import type { tracing } from '@platform/contracts';
import { Link, useParams } from 'react-router';
import { DataTable, PageHeader, QueryState } from '../../../ui';
import { useDataset } from '../api';
import { preview } from '../results';

type Example = tracing.Example & { index: number };

/** `/evaluations/datasets/:datasetId`: one version of a dataset with its examples. */
export function DatasetPage() {
  const { datasetId = '' } = useParams();
  const query = useDataset(datasetId);
  return (
    <QueryState query={query}>
      {(dataset) => (
        <Stack>
          <PageHeader
            title={`${dataset.name} v${dataset.version}`}
            description={dataset.description ?? `${dataset.example_count} examples`}
            actions={
              <>
                <Anchor component={Link} to="/evaluations/datasets">
                  All datasets
                </Anchor>
                <Button component={Link} to={`/evaluations/new?dataset=${dataset.id}`}>
                  Evaluate
                </Button>
              </>
            }
          />
          <Group gap="lg">
            <Text size="sm">{dataset.example_count.toLocaleString('en')} examples</Text>
            <Text size="sm">Owner: {dataset.owner ?? 'none'}</Text>
            {dataset.team && <Text size="sm">Team: {dataset.team}</Text>}
          </Group>
          <DataTable<Example>
            rows={(dataset.data ?? []).map((example, index) => ({ ...example, index }))}
            rowKey={(example) => example.index}
            caption="Examples"
            columns={[
              { key: 'index', header: '#', render: (example) => example.index + 1, width: 50 },
              { key: 'input', header: 'Input', render: (example) => <Cell value={example.input} /> },
              { key: 'expected', header: 'Expected output', render: (example) => <Cell value={example.expected_output} /> },
              { key: 'output', header: 'Output', render: (example) => <Cell value={example.output} /> },
              { key: 'metadata', header: 'Metadata', render: (example) => <Cell value={example.metadata} /> },
            ]}
          />
        </Stack>
      )}
    </QueryState>
  );
}

function Cell({ value }: { value: unknown }) {
  return (
    <Text size="sm" ff={typeof value === 'string' ? undefined : 'monospace'} style={{ wordBreak: 'break-word' }}>
      {preview(value)}
    </Text>
  );
}
