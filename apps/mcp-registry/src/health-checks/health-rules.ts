/** How many recent checks decide whether a connection is `degraded` by failures. */
export const RECENT_WINDOW = 10;

export interface CheckOutcome {
  ok: boolean;
  responseTime: number;
  timeoutMs: number;
}

/** The latest outcomes, oldest first, with this one appended and the window kept. */
export function appendRecent(recent: readonly boolean[], ok: boolean): boolean[] {
  return [...recent, ok].slice(-RECENT_WINDOW);
}

/**
 * `error` when the check failed; `degraded` when it answered slower than `threshold` of its
 * timeout, or when one of the recent checks failed; otherwise `healthy`.
 */
export function healthAfter(outcome: CheckOutcome, recent: readonly boolean[], threshold: number): 'healthy' | 'degraded' | 'error' {
  if (!outcome.ok) return 'error';
  if (outcome.responseTime > outcome.timeoutMs * threshold) return 'degraded';
  if (recent.some((ok) => !ok)) return 'degraded';
  return 'healthy';
}

/**
 * The connection status a check leads to: a failing `active` connection becomes `error`, and one
 * in `error` that answers again becomes `active`. `idle` and `disconnected` are the operator's.
 */
export function statusAfter(status: string, ok: boolean): string {
  if (!ok && status === 'active') return 'error';
  if (ok && status === 'error') return 'active';
  return status;
}
