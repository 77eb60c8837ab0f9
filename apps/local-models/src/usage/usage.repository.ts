import type { Db } from '../database';
import type { Prisma } from '../generated/prisma/client';

export type UsageRow = Prisma.UsageRecordCreateManyInput;
/** A stored usage record, as the view reads it. */
export type { UsageRecord as StoredUsageRecord } from '../generated/prisma/client';

export interface UsageFilter {
  from?: Date;
  to?: Date;
  model?: string;
  subject?: string;
}

/** The only code that touches the `UsageRecord` table. */
export class UsageRepository {
  constructor(private readonly db: Db) {}

  /**
   * One INSERT for a whole batch, its columns as arrays (`unnest`): a few parameters however many
   * rows, and no per-row work in the client, so a flush does not hold up the requests being served.
   */
  async insertMany(rows: UsageRow[]): Promise<void> {
    if (rows.length === 0) return;
    const column = <K extends keyof UsageRow>(key: K) => rows.map((row) => row[key]);
    await this.db.$executeRaw`
      INSERT INTO "UsageRecord" ("id", "at", "subject", "endpoint", "model", "backend", "promptTokens", "completionTokens", "cost", "durationMs", "status", "requestId")
      SELECT gen_random_uuid(), * FROM unnest(
        ${column('at').map((at) => (at instanceof Date ? at : new Date(at ?? Date.now())))}::timestamptz[],
        ${column('subject')}::text[], ${column('endpoint')}::text[], ${column('model')}::text[], ${column('backend')}::text[],
        ${column('promptTokens')}::int[], ${column('completionTokens')}::int[], ${column('cost')}::float8[], ${column('durationMs')}::float8[],
        ${column('status')}::text[], ${column('requestId').map((id) => id ?? null)}::text[]
      )`;
  }

  private where(filter: UsageFilter): Prisma.UsageRecordWhereInput {
    return {
      // `undefined` means everyone's (an admin's list); any string, even an empty one, is one caller's.
      ...(filter.subject !== undefined && { subject: filter.subject }),
      ...(filter.model && { model: filter.model }),
      ...((filter.from || filter.to) && { at: { ...(filter.from && { gte: filter.from }), ...(filter.to && { lt: filter.to }) } }),
    };
  }

  async page(filter: UsageFilter, limit: number, offset: number) {
    const where = this.where(filter);
    const [items, total, totals, byModel] = await Promise.all([
      this.db.usageRecord.findMany({ where, orderBy: [{ at: 'desc' }, { id: 'desc' }], take: limit, skip: offset }),
      this.db.usageRecord.count({ where }),
      this.db.usageRecord.aggregate({ where, _sum: { promptTokens: true, completionTokens: true, cost: true } }),
      this.db.usageRecord.groupBy({
        by: ['model'],
        where,
        _count: { _all: true },
        _sum: { promptTokens: true, completionTokens: true, cost: true },
        orderBy: { model: 'asc' },
      }),
    ]);
    return { items, total, totals, byModel };
  }
}
