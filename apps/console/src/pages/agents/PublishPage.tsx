import { Alert, Anchor, Badge, Button, FileButton, Group, List, Paper, SegmentedControl, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMemo, useState } from 'react';
import { Link } from 'react-router';
import { PlatformError } from '../../api';
import { ApiErrorAlert, PageHeader } from '../../ui';
import { useCreateAgent } from './agents-api';
import { formatOf, manifestObject, placeIssues, syntaxProblems, type PlacedIssue } from './manifest-diagnostics';
import { ManifestEditor } from './ManifestEditor';
import type { ManifestFormat } from './manifest-status';

const MAX_FILE_BYTES = 1024 * 1024;

const EXAMPLE = `apiVersion: std/v0.4.7
kind: Agent
metadata:
  name: my-agent
  namespace: default
  version: 0.1.0
  description: What the agent does
security:
  tier: tier_1_read
  capabilities:
    required: [network-outbound]
`;

/** Publish an agent from a manifest file or pasted text, through the gateway (registry, master, mesh, tracing). */
export function PublishPage() {
  const [text, setText] = useState(EXAMPLE);
  const [format, setFormat] = useState<ManifestFormat>('yaml');
  const [fileName, setFileName] = useState<string>();
  const [fileError, setFileError] = useState<string>();
  const [endpoint, setEndpoint] = useState('');
  const [team, setTeam] = useState('');
  // The server's issues belong to the text they were found in: editing it retires them.
  const [serverIssues, setServerIssues] = useState<{ text: string; issues: PlacedIssue[] }>();
  const create = useCreateAgent();

  const syntax = useMemo(() => syntaxProblems(text, format), [text, format]);
  const issues = syntax.length ? syntax : serverIssues?.text === text ? serverIssues.issues : [];

  const openFile = async (file: File | null) => {
    setFileError(undefined);
    if (!file) return;
    if (file.size > MAX_FILE_BYTES) return setFileError(`${file.name} is larger than 1 MiB, the most the gateway takes.`);
    const content = await file.text();
    setFileName(file.name);
    setFormat(formatOf(content, file.name));
    setText(content);
    create.reset();
  };

  const publish = () => {
    const manifest = manifestObject(text, format);
    if (!manifest) return;
    create.mutate(
      { manifest, deployment: endpoint.trim() ? { endpoint: endpoint.trim() } : undefined, team: team.trim() || undefined },
      {
        onError: (error) => setServerIssues({ text, issues: error instanceof PlatformError ? placeIssues(text, error.details) : [] }),
        onSuccess: () => setServerIssues(undefined),
      },
    );
  };

  const notObject = !syntax.length && !manifestObject(text, format);

  return (
    <Stack>
      <PageHeader
        title="Publish an agent"
        description="Open a manifest file (YAML or JSON) or paste it. Publishing records it in the registry, master, the mesh and tracing in one step."
      />
      <Group>
        <FileButton onChange={(file) => void openFile(file)} accept=".yaml,.yml,.json,application/json,application/yaml,text/yaml">
          {(props) => (
            <Button variant="default" {...props}>
              Open a manifest file
            </Button>
          )}
        </FileButton>
        {fileName && <Badge variant="light">{fileName}</Badge>}
        <SegmentedControl
          aria-label="Manifest format"
          value={format}
          onChange={(value) => setFormat(value as ManifestFormat)}
          data={[
            { value: 'yaml', label: 'YAML' },
            { value: 'json', label: 'JSON' },
          ]}
        />
      </Group>
      {fileError && (
        <Alert color="red" role="alert">
          {fileError}
        </Alert>
      )}
      <ManifestEditor label="Manifest" value={text} format={format} onChange={setText} issues={issues} />
      {issues.length > 0 && (
        <Paper withBorder p="sm" role="region" aria-label="Problems in the manifest">
          <Title order={2} size="h5" mb="xs">
            {issues.length} {issues.length === 1 ? 'problem' : 'problems'} in the manifest
          </Title>
          <List spacing={4} size="sm" data-testid="manifest-problems">
            {issues.map((issue, index) => (
              <List.Item key={`${issue.path}-${index}`}>
                <Text span fw={600} c={issue.severity === 'error' ? 'red.8' : 'orange.8'}>
                  Line {issue.line}
                </Text>{' '}
                <Text span ff="monospace" size="xs">
                  {issue.path}
                </Text>{' '}
                {issue.message}
              </List.Item>
            ))}
          </List>
        </Paper>
      )}
      {notObject && (
        <Alert color="yellow" role="alert">
          A manifest is an object (a mapping in YAML).
        </Alert>
      )}
      <Group align="flex-end">
        <TextInput
          label="Endpoint (optional)"
          description="Where the agent already runs; the mesh delivers its tasks there"
          placeholder="https://agents.example.com/my-agent"
          value={endpoint}
          onChange={(event) => setEndpoint(event.currentTarget.value)}
          style={{ flex: 2 }}
        />
        <TextInput
          label="Team (optional)"
          description="Share the agent with a team you edit"
          value={team}
          onChange={(event) => setTeam(event.currentTarget.value)}
          style={{ flex: 1 }}
        />
        <Button onClick={publish} loading={create.isPending} disabled={syntax.length > 0 || notObject}>
          Publish
        </Button>
      </Group>
      {create.isError && <ApiErrorAlert error={create.error} title="Not published" />}
      {create.isSuccess && (
        <Alert color="teal" title="Published" role="status">
          <Stack gap={4}>
            <Text size="sm">
              <Anchor component={Link} to={`/agents/${create.data.namespace}/${create.data.name}`}>
                {create.data.namespace}/{create.data.name}
              </Anchor>{' '}
              version {create.data.version} is {create.data.status}.
            </Text>
            <Group gap={4}>
              {create.data.steps.map((step) => (
                <Badge key={`${step.operation}-${step.step}`} variant="light" color={step.status === 'done' ? 'teal' : step.status === 'skipped' ? 'gray' : 'red'}>
                  {step.step}: {step.status}
                </Badge>
              ))}
            </Group>
          </Stack>
        </Alert>
      )}
    </Stack>
  );
}
