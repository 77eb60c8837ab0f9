import type { workers } from '@platform/contracts';
import type { z } from 'zod';
import { layoutByDepth } from '../workflows/graph/layout';

type Dag = z.infer<typeof workers.Dag>;
type Trace = z.infer<typeof workers.Trace>;
type TraceEntry = Trace['timeline'][number];

/** One step of a run as the graph shows it: its state, its current attempt, and every attempt's record. */
export interface StepView {
  id: string;
  taskId: string;
  type: string;
  state: string;
  attempt: number;
  /** The error of its latest attempt that had one. */
  lastError?: string;
  attempts: TraceEntry[];
  blocked: boolean;
}

export interface RunGraph {
  nodes: Array<{ id: string; type: 'step'; position: { x: number; y: number }; data: StepView & Record<string, unknown> }>;
  edges: Array<{ id: string; source: string; target: string }>;
}

/** A run's DAG (`/dag`) and timeline (`/trace`) as graph nodes laid out by dependency depth. */
export function runGraph(dag: Dag, trace: Trace | undefined): RunGraph {
  const attemptsOf = new Map<string, TraceEntry[]>();
  for (const entry of trace?.timeline ?? []) attemptsOf.set(entry.step, [...(attemptsOf.get(entry.step) ?? []), entry]);
  const { positions } = layoutByDepth(
    dag.nodes.map((node) => node.id),
    dag.edges,
    { columnWidth: 260, rowHeight: 120 },
  );
  const blocked = new Set(dag.blocked_steps);
  return {
    nodes: dag.nodes.map((node) => {
      const attempts = (attemptsOf.get(node.id) ?? []).sort((a, b) => a.attempt - b.attempt);
      const lastError = [...attempts].reverse().find((entry) => entry.error)?.error ?? undefined;
      return {
        id: node.id,
        type: 'step' as const,
        position: positions.get(node.id) ?? { x: 0, y: 0 },
        data: {
          id: node.id,
          taskId: node.task_id,
          type: node.type,
          state: node.state,
          attempt: node.attempt,
          ...(lastError && { lastError }),
          attempts,
          blocked: blocked.has(node.id) || node.state === 'blocked',
        },
      };
    }),
    edges: dag.edges.map((edge) => ({ id: `${edge.source}->${edge.target}`, source: edge.source, target: edge.target })),
  };
}

/** What an operator may do to a run in this state (the workers answer 409 otherwise). */
export const canRetry = (state: string) => state === 'failed' || state === 'cancelled';
export const canCancel = (state: string) => state === 'pending' || state === 'running';
/** A step whose own retry (`POST /tasks/{id}/retry`) makes sense. */
export const canRetryStep = (step: Pick<StepView, 'state'>) => step.state === 'failed' || step.state === 'cancelled';
