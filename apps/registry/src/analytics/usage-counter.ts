import type { Logger } from '@platform/telemetry';
import type { AnalyticsRepository, DailyCounts as Counts } from './analytics.repository';

/**
 * Daily usage counters per agent in Postgres. Events are added up in memory per agent and UTC day
 * and written every `flushIntervalMs` (default 1 s) with one upsert that increments the
 * counters (`INSERT ... ON CONFLICT DO UPDATE SET n = n + EXCLUDED.n`), so a busy search page
 * costs no write of its own. With `flushIntervalMs` 0 every event is written at once. Counting
 * never holds up or fails a request: a failed write is logged and its counts are dropped.
 * `flush()` writes what is pending (shutdown, tests).
 */
export class UsageCounter {
  private pending = new Map<string, Counts>();
  private writing: Promise<void> = Promise.resolve();
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly counters: AnalyticsRepository,
    private readonly logger: Logger,
    private readonly flushIntervalMs = 1000,
  ) {}

  view(agentId: string): void {
    this.add([agentId], 'views');
  }

  download(agentId: string): void {
    this.add([agentId], 'downloads');
  }

  searchAppearances(agentIds: string[]): void {
    if (agentIds.length > 0) this.add(agentIds, 'searchAppearances');
  }

  /** Writes every pending count; resolves once they are in Postgres (or were logged as lost). */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const batch = [...this.pending.values()];
    this.pending = new Map();
    // One write at a time, in (agent, day) order: concurrent upserts cannot deadlock.
    this.writing = this.writing.then(() => (batch.length > 0 ? this.write(batch) : undefined));
    return this.writing;
  }

  private add(agentIds: string[], counter: 'views' | 'downloads' | 'searchAppearances'): void {
    const day = new Date().toISOString().slice(0, 10);
    for (const agentId of new Set(agentIds)) {
      const key = `${agentId}|${day}`;
      let counts = this.pending.get(key);
      if (!counts) this.pending.set(key, (counts = { agentId, day, views: 0, downloads: 0, searchAppearances: 0 }));
      counts[counter] += 1;
    }
    if (this.flushIntervalMs === 0) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.flushIntervalMs).unref();
  }

  private async write(batch: Counts[]): Promise<void> {
    batch.sort((a, b) => (a.agentId === b.agentId ? a.day.localeCompare(b.day) : a.agentId.localeCompare(b.agentId)));
    try {
      await this.counters.increment(batch);
    } catch (error) {
      this.logger.warn({ err: error, agents: batch.length }, 'usage counters not written');
    }
  }
}
