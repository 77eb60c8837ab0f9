import type { workflowEngine } from '@platform/contracts';
import type { ExecutionFailure, NodeStates } from './execution-state';

type Execution = workflowEngine.Execution;
type Flow = workflowEngine.Flow;

interface ExecutionRow {
  id: string;
  workflowId: string;
  status: string;
  startedAt: Date;
  completedAt: Date | null;
  durationMs: number | null;
  nodes: unknown;
  result: unknown;
  error: unknown;
  retryable: boolean | null;
  owner: string | null;
  team: string | null;
  traceId: string | null;
}

/** spec 3's Execution: per node its status, duration and what it used; `result` keyed by node id. */
export function executionView(row: ExecutionRow, flow: Flow, estimatedDuration: number): Execution {
  const states = (row.nodes ?? {}) as NodeStates;
  const failure = row.error as ExecutionFailure | null;
  return {
    executionId: row.id,
    workflowId: row.workflowId,
    status: row.status as Execution['status'],
    startedAt: row.startedAt.toISOString(),
    completedAt: row.completedAt?.toISOString() ?? null,
    duration: row.durationMs,
    estimatedDuration,
    nodes: flow.nodes.map((node) => {
      const state = states[node.id];
      return {
        nodeId: node.id,
        status: state?.status ?? 'pending',
        duration: state?.duration ?? null,
        attempts: state?.attempts ?? 0,
        ...(state?.modelUsed && { modelUsed: state.modelUsed }),
        ...(state?.tokensUsed !== undefined && { tokensUsed: state.tokensUsed }),
        ...(state?.entityCreated && { entityCreated: state.entityCreated }),
      };
    }),
    result: (row.result ?? {}) as Record<string, unknown>,
    ...(failure && { error: failure, retryable: row.retryable ?? failure.retryable }),
    owner: row.owner,
    team: row.team,
    traceId: row.traceId,
  };
}
