import { Badge, Box, Button, Group, Paper, ScrollArea, Stack, Text, Title } from '@mantine/core';
import type { workflowEngine } from '@platform/contracts';
import { ReactFlowProvider, type Edge } from '@xyflow/react';
import { useMemo, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { ApiErrorAlert, JsonView, PageHeader, QueryState } from '../../../ui';
import { traceHref } from '../../traces/links';
import { useExecuteWorkflow, useWorkflow } from '../api/workflows-api';
import type { ComponentFlowNode } from '../graph/ComponentNode';
import { flowToCanvas } from '../graph/flow-graph';
import { formatDuration, isFinished, stateBadgeColor, type NodeRunView } from '../graph/node-states';
import { WorkflowCanvas } from '../graph/WorkflowCanvas';
import { Lead } from '../Lead';
import { useRun } from './use-run';

/** `/workflows/:workflowId/executions/:executionId`: a run on its workflow's canvas, live while it runs, replayed after. */
export function ExecutionPage() {
  const { workflowId = '', executionId = '' } = useParams();
  const workflow = useWorkflow(workflowId);
  return (
    <QueryState query={workflow}>
      {(stored) => (
        <ReactFlowProvider>
          <RunOnCanvas key={executionId} workflow={stored} executionId={executionId} />
        </ReactFlowProvider>
      )}
    </QueryState>
  );
}

function RunOnCanvas({ workflow, executionId }: { workflow: workflowEngine.WorkflowDetail; executionId: string }) {
  const canvas = useMemo(() => flowToCanvas(workflow.flow), [workflow.flow]);
  const { run, error, live } = useRun(
    executionId,
    useMemo(() => canvas.nodes.map((node) => node.id), [canvas]),
  );
  const [selected, setSelected] = useState<string>();
  const execute = useExecuteWorkflow(workflow.id);
  const navigate = useNavigate();
  const nodes: ComponentFlowNode[] = useMemo(() => canvas.nodes.map((node) => ({ ...node, data: { ...node.data, run: run.nodes[node.id] } })), [canvas, run]);
  const edges: Edge[] = canvas.edges;
  const finished = isFinished(run.status);
  const node = workflow.flow.nodes.find((candidate) => candidate.id === selected);

  return (
    <Stack gap="sm">
      <PageHeader
        title={`Run of ${workflow.name}`}
        description={
          <Lead>
            Execution {executionId} · <Link to={`/workflows/${workflow.id}`}>back to the workflow</Link>
          </Lead>
        }
        actions={
          <>
            <Badge size="lg" color={stateBadgeColor(run.status)} autoContrast data-testid="run-status">
              {run.status}
            </Badge>
            {live && !finished && (
              <Badge size="lg" variant="dot" color="blue">
                live
              </Badge>
            )}
            <Text size="sm">{formatDuration(run.duration)}</Text>
            {run.traceId && (
              <Button component={Link} to={traceHref(run.traceId)} variant="default">
                Open trace
              </Button>
            )}
            <Button
              variant="default"
              onClick={() => execute.mutate(undefined, { onSuccess: (accepted) => navigate(`/workflows/${workflow.id}/executions/${accepted.executionId}`) })}
              loading={execute.isPending}
            >
              Run again
            </Button>
          </>
        }
      />
      {error && <ApiErrorAlert error={error} />}
      {execute.error && <ApiErrorAlert error={execute.error} />}
      {run.error?.message && (
        <RunFailure title={`Failed at ${run.error.nodeId ?? 'a node'}`} message={`${run.error.code ? `${run.error.code}: ` : ''}${run.error.message}`} />
      )}
      <Group align="stretch" gap="sm" wrap="nowrap" h={520}>
        <Box style={{ flex: 1, border: '1px solid var(--mantine-color-gray-3)', borderRadius: 8, overflow: 'hidden' }}>
          <WorkflowCanvas label="Run canvas" nodes={nodes} edges={edges} readOnly onSelect={setSelected} />
        </Box>
        {node && <NodeRunPanel node={node} state={run.nodes[node.id]} />}
      </Group>
      {!selected && (
        <Text size="sm" c="gray.7">
          Click a node to see its input and output.
        </Text>
      )}
    </Stack>
  );
}

function RunFailure({ title, message }: { title: string; message: string }) {
  return (
    <Paper withBorder p="sm" style={{ borderColor: 'var(--mantine-color-red-6)' }} role="alert">
      <Text fw={700} size="sm" c="red.9">
        {title}
      </Text>
      <Text size="sm">{message}</Text>
    </Paper>
  );
}

/** One node of the run: state, timing and attempts, the parameters it was given, what it produced. */
function NodeRunPanel({ node, state }: { node: workflowEngine.FlowNode; state: NodeRunView | undefined }) {
  return (
    <Paper withBorder p="sm" w={360} component="aside" aria-label={`Run of node ${node.id}`} data-testid="node-run-panel">
      <ScrollArea h="100%" type="auto">
        <Stack gap="xs">
          <Group justify="space-between">
            <Title order={2} size="h5">
              {node.id}
            </Title>
            <Badge color={stateBadgeColor(state?.status ?? 'pending')} autoContrast>
              {state?.status ?? 'pending'}
            </Badge>
          </Group>
          <Text size="xs" c="gray.7">
            {node.type} · {formatDuration(state?.duration)} · {state?.attempts ?? 0} attempt{state?.attempts === 1 ? '' : 's'}
            {state?.startedAt ? ` · started ${new Date(state.startedAt).toLocaleTimeString()}` : ''}
          </Text>
          {state?.error?.message && (
            <Text size="sm" c="red.9">
              {state.error.code}: {state.error.message}
            </Text>
          )}
          <Title order={3} size="h6">
            Input
          </Title>
          <Text size="xs" c="gray.7">
            The node&apos;s parameters; templates are filled in from upstream outputs when it runs.
          </Text>
          <JsonView value={node.data} maxHeight={180} />
          <Title order={3} size="h6">
            Output
          </Title>
          {state?.output !== undefined ? (
            <JsonView value={state.output} maxHeight={220} />
          ) : (
            <Text size="sm" c="gray.7">
              {state?.status === 'completed' ? 'No output.' : 'None yet.'}
            </Text>
          )}
        </Stack>
      </ScrollArea>
    </Paper>
  );
}
