import type { Db } from '../database';
import type { Prisma } from '../generated/prisma/client';

export type UsageRow = Prisma.UsageRecordCreateManyInput;

export interface UsageFilter {
  from?: Date;
  to?: Date;
  model?: string;
  subject?: string;
}

/** The only code that touches the `UsageRecord` table. */
export class UsageRepository {
  constructor(private readonly db: Db) {}

  async insertMany(rows: UsageRow[]): Promise<void> {
    await this.db.usageRecord.createMany({ data: rows });
  }

  private where(filter: UsageFilter): Prisma.UsageRecordWhereInput {
    return {
      ...(filter.subject && { subject: filter.subject }),
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
