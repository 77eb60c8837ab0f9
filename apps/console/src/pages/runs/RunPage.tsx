import '@xyflow/react/dist/style.css';
import { Badge, Box, Button, Group, Paper, ScrollArea, Stack, Table, Text, Title } from '@mantine/core';
import { Background, Controls, ReactFlow, ReactFlowProvider } from '@xyflow/react';
import { useMemo, useState } from 'react';
import { Link, useParams } from 'react-router';
import { ApiErrorAlert, PageHeader, QueryState } from '../../ui';
import { formatDuration, stateBadgeColor } from '../workflows/graph/node-states';
import { canCancel, canRetry, canRetryStep, runGraph, type StepView } from './run-graph';
import { Lead } from '../workflows/Lead';
import { useDag, useRunAction, useTrace } from './runs-api';
import { stepNodeTypes } from './StepNode';

/** `/runs/:runId`: a workers run drawn as its DAG, with retry and cancel. */
export function RunPage() {
  const { runId = '' } = useParams();
  const dag = useDag(runId);
  const trace = useTrace(runId, dag.data?.state);
  const action = useRunAction(runId);
  const [selected, setSelected] = useState<string>();
  const graph = useMemo(() => (dag.data ? runGraph(dag.data, trace.data) : undefined), [dag.data, trace.data]);
  const step = graph?.nodes.find((node) => node.id === selected)?.data;

  return (
    <Stack gap="sm">
      <PageHeader
        title="Run"
        description={
          <Lead>
            {runId} · <Link to="/runs">All runs</Link>
          </Lead>
        }
        actions={
          dag.data && (
            <>
              <Badge size="lg" color={stateBadgeColor(dag.data.state)} autoContrast data-testid="run-state">
                {dag.data.state}
              </Badge>
              <Button
                variant="default"
                disabled={!canRetry(dag.data.state)}
                loading={action.isPending && action.variables?.kind === 'retry'}
                onClick={() => action.mutate({ kind: 'retry' })}
              >
                Retry run
              </Button>
              <Button
                color="red.9"
                disabled={!canCancel(dag.data.state)}
                loading={action.isPending && action.variables?.kind === 'cancel'}
                onClick={() => action.mutate({ kind: 'cancel' })}
              >
                Cancel run
              </Button>
            </>
          )
        }
      />
      {action.error && <ApiErrorAlert error={action.error} />}
      <QueryState query={dag}>
        {(run) => (
          <>
            {run.error && (
              <Paper withBorder p="sm" role="alert" style={{ borderColor: 'var(--mantine-color-red-6)' }}>
                <Text size="sm" fw={700} c="red.9">
                  {run.state === 'cancelled' ? 'Why it stopped' : 'Why it failed'}
                </Text>
                <Text size="sm">{run.error}</Text>
                {run.blocked_steps.length > 0 && <Text size="sm">Blocked: {run.blocked_steps.join(', ')}</Text>}
              </Paper>
            )}
            <Group align="stretch" gap="sm" wrap="nowrap" h={480}>
              <Box
                style={{ flex: 1, border: '1px solid var(--mantine-color-gray-3)', borderRadius: 8, overflow: 'hidden' }}
                role="region"
                aria-label="Run graph"
              >
                <ReactFlowProvider>
                  <ReactFlow
                    nodes={graph?.nodes ?? []}
                    edges={graph?.edges ?? []}
                    nodeTypes={stepNodeTypes}
                    nodesDraggable={false}
                    nodesConnectable={false}
                    onNodeClick={(_event, node) => setSelected(node.id)}
                    onPaneClick={() => setSelected(undefined)}
                    fitView
                    fitViewOptions={{ padding: 0.2, maxZoom: 1.2 }}
                    minZoom={0.1}
                    proOptions={{ hideAttribution: true }}
                  >
                    <Background gap={20} />
                    <Controls showInteractive={false} />
                  </ReactFlow>
                </ReactFlowProvider>
              </Box>
              {step && (
                <StepPanel
                  step={step}
                  onRetry={() => action.mutate({ kind: 'retry-step', taskId: step.taskId })}
                  retrying={action.isPending && action.variables?.kind === 'retry-step'}
                />
              )}
            </Group>
            {!step && (
              <Text size="sm" c="gray.7">
                Click a step to see its attempts and errors.
              </Text>
            )}
          </>
        )}
      </QueryState>
      {trace.isError && !dag.isError && <ApiErrorAlert error={trace.error} title="The run's timeline could not be read" />}
    </Stack>
  );
}

function StepPanel({ step, onRetry, retrying }: { step: StepView; onRetry: () => void; retrying: boolean }) {
  return (
    <Paper withBorder p="sm" w={380} component="aside" aria-label={`Step ${step.id}`} data-testid="step-panel">
      <ScrollArea h="100%" type="auto">
        <Stack gap="xs">
          <Group justify="space-between">
            <Title order={2} size="h5">
              {step.id}
            </Title>
            <Badge color={stateBadgeColor(step.state)} autoContrast>
              {step.state}
            </Badge>
          </Group>
          <Text size="xs" c="gray.7">
            {step.type} step · attempt {step.attempt} · task <code>{step.taskId}</code>
          </Text>
          {canRetryStep(step) && (
            <Button size="xs" variant="default" onClick={onRetry} loading={retrying}>
              Retry this step
            </Button>
          )}
          <Title order={3} size="h6">
            Attempts
          </Title>
          {step.attempts.length === 0 ? (
            <Text size="sm" c="gray.7">
              None yet.
            </Text>
          ) : (
            <Table withTableBorder fz="xs" verticalSpacing={4}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th scope="col">#</Table.Th>
                  <Table.Th scope="col">State</Table.Th>
                  <Table.Th scope="col">Time</Table.Th>
                  <Table.Th scope="col">Error</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {step.attempts.map((attempt) => (
                  <Table.Tr key={`${attempt.task_id}:${attempt.attempt}:${attempt.started_at}`}>
                    <Table.Td>{attempt.attempt}</Table.Td>
                    <Table.Td>{attempt.state}</Table.Td>
                    <Table.Td>{formatDuration(attempt.duration_ms)}</Table.Td>
                    <Table.Td style={{ wordBreak: 'break-word' }}>{attempt.error ?? '–'}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          )}
        </Stack>
      </ScrollArea>
    </Paper>
  );
}
