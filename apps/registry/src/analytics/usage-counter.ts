import type { Logger } from '@platform/service-kit';
import type { Db } from '../database';

type Counter = 'views' | 'downloads' | 'searchAppearances';

/**
 * Daily usage counters per agent in Postgres, incremented as things happen with one upsert per
 * event (`INSERT ... ON CONFLICT DO UPDATE SET n = n + 1`). Counting never holds up or fails the
 * request that caused it: a failed increment is logged and dropped.
 */
export class UsageCounter {
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
  ) {}

  view(agentId: string): void {
    this.count('views', [agentId]);
  }

  download(agentId: string): void {
    this.count('downloads', [agentId]);
  }

  searchAppearances(agentIds: string[]): void {
    if (agentIds.length > 0) this.count('searchAppearances', agentIds);
  }

  /** Waits for increments in flight (shutdown, tests). */
  async flush(): Promise<void> {
    await Promise.all([...this.pending]);
  }

  private count(counter: Counter, agentIds: string[]): void {
    // Sorted ids: concurrent multi-row upserts lock rows in one order and cannot deadlock.
    const ids = [...new Set(agentIds)].sort();
    const views = counter === 'views' ? 1 : 0;
    const downloads = counter === 'downloads' ? 1 : 0;
    const appearances = counter === 'searchAppearances' ? 1 : 0;
    const work = this.db.$executeRaw`
      INSERT INTO "registry"."AgentDailyStat" ("agentId", "day", "views", "downloads", "searchAppearances")
      SELECT id, (now() AT TIME ZONE 'UTC')::date, ${views}, ${downloads}, ${appearances}
      FROM unnest(${ids}::uuid[]) AS id
      ON CONFLICT ("agentId", "day") DO UPDATE SET
        "views" = "AgentDailyStat"."views" + EXCLUDED."views",
        "downloads" = "AgentDailyStat"."downloads" + EXCLUDED."downloads",
        "searchAppearances" = "AgentDailyStat"."searchAppearances" + EXCLUDED."searchAppearances"`.then(
      () => undefined,
      (error: unknown) => this.logger.warn({ err: error, counter }, 'usage counter not incremented'),
    );
    this.pending.add(work);
    void work.finally(() => this.pending.delete(work));
  }
}
