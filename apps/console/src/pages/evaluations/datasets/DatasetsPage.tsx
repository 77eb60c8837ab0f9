import { Anchor, Button, Group, Paper, Stack, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { ApiErrorAlert, DataTable, PageHeader, QueryState } from '../../../ui';
import { useCreateDataset, useDatasets, type Dataset } from '../api';
import { parseExamples } from '../results';

/** `/evaluations/datasets`: the datasets the user may read, and a new one (or a new version). */
export function DatasetsPage() {
  const query = useDatasets();
  return (
    <Stack>
      <PageHeader
        title="Datasets"
        description="Examples to evaluate: an input, and an expected output or an output to score."
        actions={
          <Anchor component={Link} to="/evaluations">
            Evaluations
          </Anchor>
        }
      />
      <QueryState query={query}>
        {(page) => (
          <DataTable<Dataset>
            rows={page.datasets}
            rowKey={(dataset) => dataset.id}
            empty="No dataset yet."
            caption="Datasets"
            columns={[
              {
                key: 'name',
                header: 'Name',
                render: (dataset) => (
                  <Anchor component={Link} to={`/evaluations/datasets/${dataset.id}`}>
                    {dataset.name}
                  </Anchor>
                ),
              },
              { key: 'version', header: 'Version', render: (dataset) => dataset.version },
              { key: 'examples', header: 'Examples', render: (dataset) => dataset.example_count.toLocaleString('en') },
              { key: 'description', header: 'Description', render: (dataset) => dataset.description ?? '' },
              { key: 'created', header: 'Created', render: (dataset) => new Date(dataset.created_at).toLocaleString('en') },
            ]}
          />
        )}
      </QueryState>
      <NewDataset />
    </Stack>
  );
}

const SAMPLE = '{"input": "2 + 2", "expected_output": "4", "output": "4"}';

function NewDataset() {
  const create = useCreateDataset();
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [text, setText] = useState('');
  const { examples, errors } = parseExamples(text);
  const ready = name.trim() !== '' && text.trim() !== '' && errors.length === 0;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!ready) return;
    create.mutate(
      { name: name.trim(), ...(description.trim() && { description: description.trim() }), data: examples },
      { onSuccess: (dataset) => navigate(`/evaluations/datasets/${dataset.id}`) },
    );
  };

  return (
    <Paper withBorder p="md" component="form" onSubmit={submit} aria-labelledby="new-dataset-title">
      <Title order={2} size="h4" id="new-dataset-title" mb="xs">
        New dataset
      </Title>
      <Text size="sm" c="gray.8" mb="sm">
        The same name again makes its next version.
      </Text>
      <Stack>
        <Group grow align="flex-start">
          <TextInput label="Name" required value={name} onChange={(e) => setName(e.currentTarget.value)} maxLength={200} />
          <TextInput label="Description" value={description} onChange={(e) => setDescription(e.currentTarget.value)} maxLength={2000} />
        </Group>
        <Textarea
          label="Examples"
          description="A JSON array, or one JSON example a line: input, and expected_output, output or metadata"
          placeholder={SAMPLE}
          autosize
          minRows={4}
          maxRows={16}
          ff="monospace"
          value={text}
          onChange={(e) => setText(e.currentTarget.value)}
          error={text.trim() && errors.length ? errors.slice(0, 5).join('\n') : undefined}
        />
        {text.trim() && errors.length === 0 && (
          <Text size="sm" data-testid="example-count">
            {examples.length} example{examples.length === 1 ? '' : 's'}
          </Text>
        )}
        <ApiErrorAlert error={create.error} />
        <Group>
          <Button type="submit" disabled={!ready} loading={create.isPending}>
            Create dataset
          </Button>
        </Group>
      </Stack>
    </Paper>
  );
}
