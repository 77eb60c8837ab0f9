import type { workflowEngine } from '@platform/contracts';

type Execution = workflowEngine.Execution;
type NodeRunStatus = workflowEngine.Execution['nodes'][number]['status'];

/** What the canvas shows of one node of a run: its state, timing, attempts, output and error. */
export interface NodeRunView {
  status: NodeRunStatus | 'retrying';
  startedAt?: string;
  completedAt?: string;
  /** Milliseconds, once the node ended. */
  duration?: number | null;
  attempts: number;
  output?: unknown;
  error?: { code?: string; message?: string };
  nextAttemptIn?: number;
}

export interface RunView {
  status: 'queued' | 'running' | 'completed' | 'failed';
  nodes: Record<string, NodeRunView>;
  duration?: number | null;
  error?: { nodeId?: string; code?: string; message?: string };
  /** The trace the run belongs to, once the stored execution names it. */
  traceId?: string | null;
}

/** A stream message of `/executions/{id}/stream`, as far as the canvas reads it. */
export interface StreamMessage {
  type: string;
  nodeId?: string;
  timestamp?: string;
  duration?: number | null;
  output?: unknown;
  attempt?: number;
  nextAttemptIn?: number;
  error?: { code?: string; message?: string; nodeId?: string };
  result?: Record<string, unknown>;
}

export const emptyRun = (nodeIds: readonly string[]): RunView => ({
  status: 'running',
  nodes: Object.fromEntries(nodeIds.map((id) => [id, { status: 'pending', attempts: 0 }])),
});

/** The run after one stream event (a pure reducer: the live canvas folds the stream through it). */
export function applyStreamEvent(run: RunView, event: StreamMessage): RunView {
  const id = event.nodeId;
  const node = id ? (run.nodes[id] ?? { status: 'pending', attempts: 0 }) : undefined;
  const withNode = (next: NodeRunView): RunView => ({ ...run, nodes: { ...run.nodes, [id as string]: next } });
  switch (event.type) {
    case 'node-started':
      return node ? withNode({ ...node, status: 'running', startedAt: node.startedAt ?? event.timestamp, attempts: Math.max(node.attempts, 1) }) : run;
    case 'node-retrying':
      return node
        ? withNode({ ...node, status: 'retrying', attempts: event.attempt ?? node.attempts, error: event.error, nextAttemptIn: event.nextAttemptIn })
        : run;
    case 'node-completed':
      return node
        ? withNode({
            ...node,
            status: 'completed',
            completedAt: event.timestamp,
            duration: event.duration ?? null,
            output: event.output,
            error: undefined,
            attempts: Math.max(node.attempts, 1),
          })
        : run;
    case 'node-failed':
      return node ? withNode({ ...node, status: 'failed', completedAt: event.timestamp, attempts: event.attempt ?? node.attempts, error: event.error }) : run;
    case 'node-skipped':
      return node ? withNode({ ...node, status: 'skipped' }) : run;
    case 'workflow-completed':
      return { ...run, status: 'completed', duration: event.duration ?? null };
    case 'workflow-failed':
      return { ...run, status: 'failed', duration: event.duration ?? null, error: event.error };
    default:
      return run;
  }
}

/** A stored execution as the canvas shows it: a past run replayed onto its graph. */
export function runFromExecution(execution: Execution): RunView {
  const nodes: Record<string, NodeRunView> = {};
  for (const node of execution.nodes) {
    nodes[node.nodeId] = {
      status: node.status,
      duration: node.duration,
      attempts: node.attempts,
      ...(execution.result[node.nodeId] !== undefined && { output: execution.result[node.nodeId] }),
      ...(execution.error?.nodeId === node.nodeId && { error: { code: execution.error.code, message: execution.error.message } }),
    };
  }
  return {
    status: execution.status,
    nodes,
    duration: execution.duration,
    ...(execution.error && { error: execution.error }),
    ...(execution.traceId && { traceId: execution.traceId }),
  };
}

export const isFinished = (status: RunView['status']) => status === 'completed' || status === 'failed';

/** The colour family of a state on the canvas (borders, backgrounds; Mantine colour names). */
export const STATE_COLORS: Record<string, string> = {
  pending: 'gray',
  waiting: 'gray',
  queued: 'indigo',
  running: 'blue',
  retrying: 'orange',
  completed: 'teal',
  failed: 'red',
  skipped: 'gray',
  cancelled: 'dark',
  blocked: 'grape',
};

/** A badge's colour for a state: shades whose text stays readable (WCAG AA), with `autoContrast`. */
const BADGE_SHADES: Record<string, string> = {
  gray: 'gray.7',
  indigo: 'indigo.7',
  blue: 'blue.8',
  orange: 'orange.5',
  teal: 'teal.9',
  red: 'red.9',
  dark: 'dark.6',
  grape: 'grape.7',
};
export const stateBadgeColor = (state: string) => BADGE_SHADES[STATE_COLORS[state] ?? 'gray'] ?? 'gray.7';

/** `1.2 s`, `340 ms`: a node's time as people read it. */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '–';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}
