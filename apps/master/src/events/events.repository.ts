import type { master } from '@platform/contracts';
import type { Db } from '../database';
import type { Prisma } from '../generated/prisma/client';

export interface NewEvent {
  type: string;
  subject?: string | null;
  actor?: string | null;
  data?: Record<string, unknown>;
}

type Client = Db | Prisma.TransactionClient;

/** Platform events, persisted in `master.Event`. */
export class EventsRepository {
  constructor(private readonly db: Db) {}

  /** Records an event, inside the caller's transaction when given one. */
  async record(event: NewEvent, tx: Client = this.db): Promise<void> {
    await tx.event.create({
      data: { type: event.type, subject: event.subject ?? null, actor: event.actor ?? null, data: (event.data ?? {}) as Prisma.InputJsonValue },
    });
  }

  async list(query: master.EventQuery) {
    const type = query.type?.endsWith('.*') ? { startsWith: query.type.slice(0, -1) } : query.type;
    const where: Prisma.EventWhereInput = {
      ...(type !== undefined && { type }),
      ...((query.from || query.to) && { createdAt: { ...(query.from && { gte: new Date(query.from) }), ...(query.to && { lte: new Date(query.to) }) } }),
    };
    const [rows, total] = await Promise.all([
      this.db.event.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: query.limit, skip: query.offset }),
      this.db.event.count({ where }),
    ]);
    return {
      items: rows.map((row) => ({
        id: row.id.toString(),
        type: row.type,
        subject: row.subject,
        actor: row.actor,
        data: row.data,
        createdAt: row.createdAt.toISOString(),
      })),
      total,
      limit: query.limit,
      offset: query.offset,
    };
  }
}
