import { readScopeWhere } from '@platform/http';
import type { ReadScope } from '../access';
import type { Db } from '../database';
import type { Message, Prisma } from '../generated/prisma/client';

export type MessageRow = Message;

export interface NewMessage {
  id: string;
  messageId: string;
  sender: string | null;
  agentId: string;
  capability: string | null;
  payload: unknown;
  expiresAt: Date | null;
  /** The subject of the token that sent it. */
  sentBy: string | null;
  /** The recipient agent's owner and team when it was sent: with the sender, who may read it. */
  recipientOwner: string | null;
  recipientTeam: string | null;
}

export interface MessageFilter {
  state?: string;
  states?: string[];
  agentId?: string;
  capability?: string;
  messageId?: string;
  since?: Date;
}

const TERMINAL = ['acked', 'dead', 'expired'];
const PENDING = ['queued', 'delivering'];

const ALL: ReadScope = { all: true };

/** The messages a caller may read: those it sent, and those to agents it may read. */
const readable = (scope: ReadScope): Prisma.MessageWhereInput => {
  if (scope.all) return {};
  const recipient = readScopeWhere(scope, { owner: 'recipientOwner', team: 'recipientTeam' }) as { OR: Prisma.MessageWhereInput[] };
  return { OR: [{ sentBy: scope.owner }, ...recipient.OR] };
};

const where = (filter: MessageFilter, scope: ReadScope = ALL): Prisma.MessageWhereInput => ({
  ...readable(scope),
  ...(filter.state && { state: filter.state }),
  ...(filter.states && { state: { in: filter.states } }),
  ...(filter.agentId && { agentId: filter.agentId }),
  ...(filter.capability && { capability: filter.capability }),
  ...(filter.messageId && { messageId: filter.messageId }),
  ...(filter.since && { createdAt: { gte: filter.since } }),
});

/** Postgres is the record of truth of every message and its delivery state. */
export class MessagesRepository {
  constructor(private readonly db: Db) {}

  /** Many messages in one statement (sends arriving together are committed together). */
  async insertMany(messages: readonly NewMessage[]): Promise<void> {
    // One statement over arrays (unnest): no per-batch-size query plan to build on the hot path.
    await this.db.$executeRaw`
      INSERT INTO mesh.messages (id, "messageId", sender, "agentId", capability, payload, "expiresAt", "createdAt", "updatedAt", "sentBy", "recipientOwner", "recipientTeam")
      SELECT id, message_id, sender, agent_id, capability, payload, expires_at AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC',
        sent_by, recipient_owner, recipient_team
      FROM unnest(
        ${messages.map((m) => m.id)}::uuid[], ${messages.map((m) => m.messageId)}::text[], ${messages.map((m) => m.sender)}::text[],
        ${messages.map((m) => m.agentId)}::text[], ${messages.map((m) => m.capability)}::text[],
        ${messages.map((m) => JSON.stringify(m.payload ?? null))}::jsonb[], ${messages.map((m) => m.expiresAt?.toISOString() ?? null)}::timestamptz[],
        ${messages.map((m) => m.sentBy)}::text[], ${messages.map((m) => m.recipientOwner)}::text[], ${messages.map((m) => m.recipientTeam)}::text[]
      ) AS t(id, message_id, sender, agent_id, capability, payload, expires_at, sent_by, recipient_owner, recipient_team)`;
  }

  find(id: string): Promise<MessageRow | null> {
    return this.db.message.findUnique({ where: { id } });
  }

  list(filter: MessageFilter, limit: number, offset: number, scope: ReadScope = ALL): Promise<MessageRow[]> {
    return this.db.message.findMany({ where: where(filter, scope), orderBy: [{ createdAt: 'desc' }, { id: 'asc' }], take: limit, skip: offset });
  }

  count(filter: MessageFilter, scope: ReadScope = ALL): Promise<number> {
    return this.db.message.count({ where: where(filter, scope) });
  }

  /** Pages through every matching message in creation order (NDJSON export). */
  async *stream(filter: MessageFilter, max: number, batch = 500): AsyncGenerator<MessageRow> {
    let cursor: string | undefined;
    let sent = 0;
    while (sent < max) {
      const rows = await this.db.message.findMany({
        where: where(filter),
        orderBy: { id: 'asc' },
        take: Math.min(batch, max - sent),
        ...(cursor && { cursor: { id: cursor }, skip: 1 }),
      });
      if (rows.length === 0) return;
      for (const row of rows) yield row;
      sent += rows.length;
      cursor = rows[rows.length - 1].id;
    }
  }

  /** Acknowledged deliveries, each with the attempt that delivered it (so `attempts` says how many it took). */
  async markAcked(acks: ReadonlyArray<{ id: string; attempt: number }>, at: Date): Promise<void> {
    if (acks.length === 0) return;
    await this.db.$executeRaw`
      UPDATE mesh.messages m SET state = 'acked', attempts = a.attempt, "ackedAt" = ${at.toISOString()}::timestamptz AT TIME ZONE 'UTC',
        "deliveredAt" = ${at.toISOString()}::timestamptz AT TIME ZONE 'UTC', "updatedAt" = ${at.toISOString()}::timestamptz AT TIME ZONE 'UTC'
      FROM unnest(${acks.map((a) => a.id)}::uuid[], ${acks.map((a) => a.attempt)}::int[]) AS a(id, attempt)
      WHERE m.id = a.id AND m.state IN ('queued', 'delivering')`;
  }

  async markAttempt(id: string, attempts: number, error: string): Promise<void> {
    await this.db.message.updateMany({
      where: { id, state: { in: PENDING } },
      data: { state: 'queued', attempts, lastError: error.slice(0, 1000), updatedAt: new Date() },
    });
  }

  async markDead(id: string, attempts: number, reason: string): Promise<void> {
    await this.db.message.updateMany({
      where: { id, state: { in: PENDING } },
      data: { state: 'dead', attempts, lastError: reason.slice(0, 1000), deadReason: reason.slice(0, 1000), updatedAt: new Date() },
    });
  }

  async markExpired(id: string): Promise<void> {
    await this.db.message.updateMany({ where: { id, state: { in: PENDING } }, data: { state: 'expired', deadReason: 'ttl_expired', updatedAt: new Date() } });
  }

  /** Dead letters back to queued (all, or the ids given); returns the rows to enqueue again. */
  async requeue(ids?: string[]): Promise<MessageRow[]> {
    return this.db.message.updateManyAndReturn({
      where: { state: 'dead', ...(ids && { id: { in: ids } }) },
      data: { state: 'queued', attempts: 0, deadReason: null, updatedAt: new Date() },
    });
  }

  /** Messages of an agent still to deliver (resync puts them back on its queue). */
  pendingOf(agentIds: string[], limit = 10_000): Promise<MessageRow[]> {
    return this.db.message.findMany({ where: { agentId: { in: agentIds }, state: { in: PENDING } }, orderBy: { createdAt: 'asc' }, take: limit });
  }

  /** An agent that left: what was waiting for it dies with a reason. */
  async killPending(agentId: string, reason: string): Promise<number> {
    const { count } = await this.db.message.updateMany({
      where: { agentId, state: { in: PENDING } },
      data: { state: 'dead', deadReason: reason, lastError: reason, updatedAt: new Date() },
    });
    return count;
  }

  async countsByState(): Promise<Record<string, number>> {
    const rows = await this.db.message.groupBy({ by: ['state'], _count: { _all: true } });
    return Object.fromEntries(rows.map((row) => [row.state, row._count._all]));
  }

  async depth(limit: number, scope: ReadScope = ALL): Promise<Array<{ agentId: string; depth: number }>> {
    const rows = await this.db.message.groupBy({
      by: ['agentId'],
      where: where({ states: PENDING }, scope),
      _count: { _all: true },
      orderBy: { _count: { agentId: 'desc' } },
      take: limit,
    });
    return rows.map((row) => ({ agentId: row.agentId, depth: row._count._all }));
  }

  /** Removes finished messages (acked, dead, expired) last changed before `before`. */
  async purge(before: Date): Promise<number> {
    const { count } = await this.db.message.deleteMany({ where: { state: { in: TERMINAL }, updatedAt: { lt: before } } });
    return count;
  }

  /** Keeps the oldest message of each message id that was stored more than once; removes the rest. */
  async dedupe(): Promise<Array<{ messageId: string; kept: string; removed: string[] }>> {
    const rows = await this.db.$queryRaw<Array<{ message_id: string; ids: string[] }>>`
      SELECT "messageId" AS message_id, array_agg(id::text ORDER BY "createdAt", id) AS ids
      FROM mesh.messages GROUP BY "messageId" HAVING count(*) > 1 LIMIT 10000`;
    const groups = rows.map((row) => ({ messageId: row.message_id, kept: row.ids[0], removed: row.ids.slice(1) }));
    const removed = groups.flatMap((group) => group.removed);
    for (let i = 0; i < removed.length; i += 1000) await this.db.message.deleteMany({ where: { id: { in: removed.slice(i, i + 1000) } } });
    return groups;
  }
}
