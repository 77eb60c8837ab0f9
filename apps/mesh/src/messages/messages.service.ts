import type { mesh } from '@platform/contracts';
import { notFound, serviceUnavailable, type Owned } from '@platform/http';
import type { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import type { Caller, ReadScope } from '../access';
import type { AgentsRepository } from '../agents/agents.repository';
import type { RoutingTable } from '../routing/routing.table';
import type { SettingsService } from '../settings/settings.service';
import type { DeliveryService } from './delivery';
import type { MessageFilter, MessagesRepository, NewMessage } from './messages.repository';
import { messageView } from './messages.view';

export interface MessagesServiceDeps {
  messages: MessagesRepository;
  agents: AgentsRepository;
  delivery: DeliveryService;
  routing: RoutingTable;
  settings: SettingsService;
  redis: Redis;
  /** Refuses intake while the node drains. */
  assertAccepting: () => void;
}

const dedupeKey = (messageId: string) => `mesh:dedupe:${messageId}`;

/** Sending (de-duplicated, routed, recorded, queued), listing, exporting and maintenance of messages. */
export class MessagesService {
  /** Recipients seen lately: their owner and team, recorded on every message sent to them. */
  private readonly knownAgents = new Map<string, { at: number; owner: Owned }>();
  private readonly commits: GroupCommit;

  constructor(private readonly deps: MessagesServiceDeps) {
    this.commits = new GroupCommit(deps.messages, deps.delivery);
  }

  /** Sends for a caller, who reads the message afterwards (as does whoever may read the recipient agent). */
  async send(
    body: mesh.SendMessageBody,
    caller: Caller,
  ): Promise<{ id: string; message_id: string; agent_id: string; state: mesh.MeshMessage['state']; duplicate: boolean }> {
    this.deps.assertAccepting();
    const settings = this.deps.settings.value;
    const id = randomUUID();
    const messageId = body.message_id ?? id;
    // Accepted once per de-duplication window: the first send claims the id in Redis.
    const claimed = await this.deps.redis.set(dedupeKey(messageId), id, 'PX', settings.dedupe_window_ms, 'NX');
    if (claimed === null) {
      const firstId = await this.deps.redis.get(dedupeKey(messageId));
      const first = firstId ? await this.deps.messages.find(firstId) : null;
      if (first)
        return { id: first.id, message_id: first.messageId, agent_id: first.agentId, state: first.state as mesh.MeshMessage['state'], duplicate: true };
    }
    try {
      const agentId = body.to ?? (await this.route(body.capability!));
      const recipient = await this.recipient(agentId);
      this.deps.routing.tracker.started(agentId);
      try {
        await this.commits.add({
          id,
          messageId,
          sender: body.from ?? null,
          agentId,
          capability: body.capability ?? null,
          payload: body.payload ?? null,
          expiresAt: new Date(Date.now() + (body.ttl_ms ?? settings.default_ttl_ms)),
          sentBy: caller.sub,
          recipientOwner: recipient.owner,
          recipientTeam: recipient.team ?? null,
        });
      } catch (error) {
        this.deps.routing.tracker.finished(agentId);
        throw error;
      }
      return { id, message_id: messageId, agent_id: agentId, state: 'queued', duplicate: false };
    } catch (error) {
      await this.deps.redis
        .eval("if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0", 1, dedupeKey(messageId), id)
        .catch(() => undefined);
      throw error;
    }
  }

  private async route(capability: string): Promise<string> {
    const agentId = await this.deps.routing.choose(capability);
    if (!agentId) throw serviceUnavailable(`No routable agent offers the capability ${capability}`, { capability, reason: 'no_routable_agent' });
    return agentId;
  }

  /** The recipient's owner and team (404 when there is no such agent), from the routing table or Postgres. */
  private async recipient(agentId: string): Promise<Owned> {
    const seen = this.knownAgents.get(agentId);
    if (seen && Date.now() - seen.at < 2000) return seen.owner;
    const row = this.deps.routing.ownerOf(agentId) ?? (await this.deps.agents.find(agentId));
    if (!row) throw notFound(`No agent ${agentId}`);
    const owner = { owner: row.owner, team: row.team ?? null };
    this.knownAgents.set(agentId, { at: Date.now(), owner });
    return owner;
  }

  forgetAgent(agentId: string): void {
    this.knownAgents.delete(agentId);
  }

  /** The messages the caller may read: those it sent and those to agents it may read. */
  async list(filter: MessageFilter, limit: number, offset: number, scope: ReadScope) {
    const [rows, total] = await Promise.all([this.deps.messages.list(filter, limit, offset, scope), this.deps.messages.count(filter, scope)]);
    return { messages: rows.map(messageView), total, limit, offset };
  }

  async *export(filter: MessageFilter, max: number): AsyncGenerator<string> {
    for await (const row of this.deps.messages.stream(filter, max)) yield `${JSON.stringify(messageView(row))}\n`;
  }

  async dedupe() {
    const groups = await this.deps.messages.dedupe();
    return {
      removed: groups.reduce((sum, group) => sum + group.removed.length, 0),
      duplicates: groups.map((group) => ({ message_id: group.messageId, kept: group.kept, removed: group.removed })),
    };
  }

  /** Dead letters go back on their agents' queues (all, or the ids given). */
  async retryDead(ids?: string[]): Promise<{ retried: number; ids: string[] }> {
    const rows = await this.deps.messages.requeue(ids);
    for (const row of rows) {
      await this.deps.delivery.forget(row.agentId, row.id);
      await this.deps.delivery.enqueue(row);
    }
    return { retried: rows.length, ids: rows.map((row) => row.id) };
  }

  async purge(olderThan: string): Promise<{ purged: number; older_than: string; before: string }> {
    const age = durationMs(olderThan);
    const before = new Date(Date.now() - age);
    const purged = await this.deps.messages.purge(before);
    // Their dead-letter jobs in BullMQ go too (Postgres stays the record of what was purged).
    await this.deps.delivery.cleanFailed(age);
    return { purged, older_than: olderThan, before: before.toISOString() };
  }

  async stats(inFlight: number) {
    const [messages, queues] = await Promise.all([this.deps.messages.countsByState(), this.deps.delivery.counts()]);
    return { messages, queues, queue_count: this.deps.delivery.knownQueues().length, in_flight: inFlight };
  }

  async depth(scope: ReadScope) {
    const agents = await this.deps.messages.depth(500, scope);
    return { total: agents.reduce((sum, agent) => sum + agent.depth, 0), agents: agents.map((agent) => ({ agent_id: agent.agentId, depth: agent.depth })) };
  }
}

class QueueingError extends Error {}

/**
 * Group commit of sends: up to MAX_COMMITS batches are written at once (one INSERT, one BullMQ
 * addBulk per agent each); sends arriving while they run wait and go together in the next batch.
 * No timer: a lone send goes at once. Commits are bound by the database's flush, not by CPU, so a
 * few in flight multiply throughput without adding latency.
 */
const MAX_COMMITS = 4;
const MAX_BATCH = 500;

class GroupCommit {
  private readonly pending: Array<{ message: NewMessage; resolve: () => void; reject: (error: unknown) => void }> = [];
  private inFlight = 0;

  constructor(
    private readonly messages: MessagesRepository,
    private readonly delivery: DeliveryService,
  ) {}

  add(message: NewMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ message, resolve, reject });
      this.kick();
    });
  }

  private kick(): void {
    while (this.inFlight < MAX_COMMITS && this.pending.length > 0) {
      const batch = this.pending.splice(0, MAX_BATCH);
      this.inFlight += 1;
      void this.commit(batch).finally(() => {
        this.inFlight -= 1;
        this.kick();
      });
    }
  }

  private async commit(batch: Array<{ message: NewMessage; resolve: () => void; reject: (error: unknown) => void }>): Promise<void> {
    const rows = batch.map((entry) => entry.message);
    try {
      await this.messages.insertMany(rows);
      try {
        await this.delivery.enqueueMany(rows);
      } catch (error) {
        throw new QueueingError((error as Error).message);
      }
      for (const entry of batch) entry.resolve();
    } catch (error) {
      // Stored but not queued: POST /cluster/resync queues it again from Postgres.
      const failure =
        error instanceof QueueingError
          ? serviceUnavailable('The message was stored but could not be queued (Redis); it is delivered after POST /cluster/resync', {
              reason: 'queue_unavailable',
              dependency: 'cache',
            })
          : error;
      for (const entry of batch) entry.reject(failure);
    }
  }
}

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `90s`, `15m`, `1h`, `7d` in milliseconds (the query is validated by PurgeQuery). */
export function durationMs(value: string): number {
  const match = /^(\d+)(ms|s|m|h|d)$/.exec(value);
  if (!match) throw new Error(`not a duration: ${value}`);
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}
