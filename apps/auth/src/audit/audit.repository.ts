import type { AuthDatabase, Prisma } from '../database';

export interface AuditRow {
  eventType: string;
  userId: string | null;
  clientId: string | null;
  ip: string | null;
  userAgent: string | null;
  metadata: Record<string, unknown>;
}

export interface AuditFilter {
  userId?: string;
  eventType?: string;
  from?: string;
  to?: string;
  limit: number;
  offset: number;
}

/** The audit events table. */
export class AuditRepository {
  constructor(private readonly db: AuthDatabase) {}

  async insert(row: AuditRow): Promise<void> {
    await this.db.auditEvent.create({ data: { ...row, metadata: row.metadata as Prisma.InputJsonValue } });
  }

  async page(filter: AuditFilter) {
    const where = {
      ...(filter.userId && { userId: filter.userId }),
      ...(filter.eventType && { eventType: filter.eventType }),
      ...((filter.from || filter.to) && {
        timestamp: { ...(filter.from && { gte: new Date(filter.from) }), ...(filter.to && { lte: new Date(filter.to) }) },
      }),
    };
    const [events, total] = await Promise.all([
      this.db.auditEvent.findMany({ where, orderBy: [{ timestamp: 'desc' }, { id: 'asc' }], take: filter.limit, skip: filter.offset }),
      this.db.auditEvent.count({ where }),
    ]);
    return { events, total };
  }
}
