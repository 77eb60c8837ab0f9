/** Latency assumed for an agent the mesh has not measured yet, so it gets its first requests. */
const DEFAULT_LATENCY_MS = 10;
/** Weight of the newest sample in the moving average. */
const ALPHA = 0.3;

/**
 * Live load of each agent as this node sees it: requests outstanding (sent, not yet acknowledged)
 * and an exponentially weighted moving average of latency (deliveries and health checks).
 */
export class LoadTracker {
  private readonly outstanding = new Map<string, number>();
  private readonly ewma = new Map<string, number>();

  started(agentId: string): void {
    this.outstanding.set(agentId, (this.outstanding.get(agentId) ?? 0) + 1);
  }

  finished(agentId: string, latencyMs?: number): void {
    const left = (this.outstanding.get(agentId) ?? 1) - 1;
    if (left <= 0) this.outstanding.delete(agentId);
    else this.outstanding.set(agentId, left);
    if (latencyMs !== undefined) this.observe(agentId, latencyMs);
  }

  observe(agentId: string, latencyMs: number): void {
    if (!Number.isFinite(latencyMs) || latencyMs < 0) return;
    const previous = this.ewma.get(agentId);
    this.ewma.set(agentId, previous === undefined ? latencyMs : previous + ALPHA * (latencyMs - previous));
  }

  /** Seeds the average from a stored latency when this node has none yet. */
  seed(agentId: string, latencyMs: number | null): void {
    if (latencyMs !== null && !this.ewma.has(agentId)) this.ewma.set(agentId, latencyMs);
  }

  outstandingOf(agentId: string): number {
    return this.outstanding.get(agentId) ?? 0;
  }

  latencyOf(agentId: string): number {
    return this.ewma.get(agentId) ?? DEFAULT_LATENCY_MS;
  }

  totalOutstanding(): number {
    let total = 0;
    for (const value of this.outstanding.values()) total += value;
    return total;
  }

  /** Lower is better: the latency the next request can expect, queued behind those outstanding. */
  cost(agentId: string): number {
    return this.latencyOf(agentId) * (this.outstandingOf(agentId) + 1);
  }

  forget(agentId: string): void {
    this.outstanding.delete(agentId);
    this.ewma.delete(agentId);
  }
}
