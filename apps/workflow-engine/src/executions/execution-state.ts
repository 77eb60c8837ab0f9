/** What Postgres keeps of each node of a run (`Execution.nodes`), enough to resume it. */
export interface NodeState {
  status: 'pending' | 'running' | 'completed' | 'failed' | 'skipped';
  attempts: number;
  startedAt?: string;
  completedAt?: string;
  duration?: number;
  output?: Record<string, unknown>;
  modelUsed?: string;
  tokensUsed?: number;
  entityCreated?: string;
  error?: { code: string; message: string; retryable: boolean };
}

export type NodeStates = Record<string, NodeState>;

export interface ExecutionFailure {
  nodeId: string;
  attempt: number;
  message: string;
  code: string;
  retryable: boolean;
}

/**
 * Delay before attempt `attempt + 1`: `initialDelay * 2^(attempt-1)`, plus up to a quarter more
 * of jitter so that retries of many runs spread out. No cap: the node's settings are the limit.
 */
export function backoffDelay(initialDelay: number, attempt: number, random: () => number = Math.random): number {
  const base = initialDelay * 2 ** (attempt - 1);
  return Math.round(base + random() * base * 0.25);
}
