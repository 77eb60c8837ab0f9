import type { Db } from '../database';

export interface DailyCounts {
  agentId: string;
  day: string;
  views: number;
  downloads: number;
  searchAppearances: number;
}

/** Daily usage counters per agent. */
export class AnalyticsRepository {
  constructor(private readonly db: Db) {}

  /** The days of an agent that have counts, from `from` to `to` inclusive. */
  days(agentId: string, from: Date, to: Date) {
    return this.db.agentDailyStat.findMany({ where: { agentId, day: { gte: from, lte: to } } });
  }

  /** Adds the counts with one upsert that increments (`INSERT ... ON CONFLICT DO UPDATE SET n = n + EXCLUDED.n`). */
  async increment(batch: DailyCounts[]): Promise<void> {
    await this.db.$executeRaw`
      INSERT INTO "registry"."AgentDailyStat" ("agentId", "day", "views", "downloads", "searchAppearances")
      SELECT * FROM unnest(${batch.map((c) => c.agentId)}::uuid[], ${batch.map((c) => c.day)}::date[], ${batch.map((c) => c.views)}::int[],
                           ${batch.map((c) => c.downloads)}::int[], ${batch.map((c) => c.searchAppearances)}::int[])
      ON CONFLICT ("agentId", "day") DO UPDATE SET
        "views" = "AgentDailyStat"."views" + EXCLUDED."views",
        "downloads" = "AgentDailyStat"."downloads" + EXCLUDED."downloads",
        "searchAppearances" = "AgentDailyStat"."searchAppearances" + EXCLUDED."searchAppearances"`;
  }
}
