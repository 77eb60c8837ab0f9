import type { Logger } from '@platform/telemetry';
import { DelayedError, Queue, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import type { SubscriberHub } from '../grpc/subscribers';
import type { LoadTracker } from '../routing/load';
import { redisTimeouts, workerConnection } from '../redis';
import type { SettingsService } from '../settings/settings.service';
import type { MessagesRepository, NewMessage } from './messages.repository';

/** What a delivery job carries: enough to deliver without reading Postgres again. */
export interface DeliveryJob {
  id: string;
  message_id: string;
  from: string | null;
  capability: string | null;
  payload: unknown;
  expires_at: number | null;
}

export interface DeliveryDeps {
  redisUrl: string;
  /** Redis commands of producers time out after this (their connection is replaced). */
  redisTimeoutMs: number;
  nodeId: string;
  /** Whether this node delivers to agents it owns over HTTP (the `api` role does not). */
  runsWorkers: boolean;
  concurrency: number;
  redis: Redis;
  settings: SettingsService;
  messages: MessagesRepository;
  hub: SubscriberHub;
  tracker: LoadTracker;
  /** The agent's HTTP endpoint (null: gRPC only). */
  endpointOf: (agentId: string) => Promise<string | null | undefined>;
  /** Tells the other nodes there is work for an agent (the one running its worker picks it up). */
  announce: (agentId: string) => Promise<void>;
  /** POSTs a message to an agent's endpoint through the outbound guard; throws unless 2xx. */
  post: (url: string, body: unknown, timeoutMs: number) => Promise<void>;
  logger: Logger;
}

const PRESENCE_MS = 30_000;
const WAIT_FOR_SUBSCRIBER_MS = 1000;
/** Redis key naming the node where an agent has a Subscribe stream open. */
export const presenceKey = (agentId: string) => `mesh:subscriber:${agentId}`;
/** BullMQ queue names may not contain `:`; agent ids never contain `~`. */
export const queueName = (agentId: string) => `mesh.deliver.${agentId.replace(/:/g, '~')}`;

/**
 * Delivery through one BullMQ queue per agent: a job per message (job id = message id, so an add
 * is idempotent), retried with exponential backoff, failed for good into the dead letters with
 * its reason. The worker of an agent's queue runs on the node that holds its Subscribe stream, or
 * on its owner node, which POSTs to the agent's HTTP endpoint when nobody subscribes.
 */
export class DeliveryService {
  private readonly producer: Redis;
  private readonly queues = new Map<string, Queue>();
  private readonly workers = new Map<string, Worker>();
  private readonly owned = new Set<string>();
  private readonly ackBuffer: string[] = [];
  private ackTimer?: NodeJS.Timeout;
  private flushing = Promise.resolve();
  private paused = false;
  private closed = false;
  private presenceTimer?: NodeJS.Timeout;

  constructor(private readonly deps: DeliveryDeps) {
    this.producer = new Redis(deps.redisUrl, { maxRetriesPerRequest: 1, enableAutoPipelining: true, ...redisTimeouts(deps.redisTimeoutMs) });
    this.producer.on('error', () => undefined);
    deps.hub.onChange((agentId, present) => void this.subscriptionChanged(agentId, present));
    this.presenceTimer = setInterval(() => void this.refreshPresence(), PRESENCE_MS / 3);
    this.presenceTimer.unref();
  }

  queue(agentId: string): Queue {
    let queue = this.queues.get(agentId);
    if (!queue) {
      queue = new Queue(queueName(agentId), { connection: this.producer });
      this.queues.set(agentId, queue);
    }
    return queue;
  }

  knownQueues(): Queue[] {
    return [...this.queues.values()];
  }

  async enqueue(row: NewMessage): Promise<void> {
    await this.enqueueMany([row]);
  }

  /** One job per message on each agent's queue, added in bulk (one Redis round trip per agent). */
  async enqueueMany(rows: readonly NewMessage[]): Promise<void> {
    const settings = this.deps.settings.value;
    const opts = {
      attempts: settings.max_delivery_attempts,
      backoff: { type: 'exponential' as const, delay: settings.retry_backoff_ms },
      removeOnComplete: true,
      removeOnFail: false,
    };
    const byAgent = new Map<string, NewMessage[]>();
    for (const row of rows) byAgent.set(row.agentId, [...(byAgent.get(row.agentId) ?? []), row]);
    await Promise.all(
      [...byAgent].map(async ([agentId, messages]) => {
        await this.queue(agentId).addBulk(
          messages.map((row) => ({
            name: 'deliver',
            data: {
              id: row.id,
              message_id: row.messageId,
              from: row.sender,
              capability: row.capability,
              payload: row.payload,
              expires_at: row.expiresAt?.getTime() ?? null,
            } satisfies DeliveryJob,
            opts: { ...opts, jobId: row.id },
          })),
        );
        if (this.wantsWorker(agentId)) this.ensureWorker(agentId);
        else await this.deps.announce(agentId);
      }),
    );
  }

  /** This node owns these agents (runs their checks, and their delivery when nobody subscribes). */
  setOwned(agentIds: Iterable<string>): void {
    this.owned.clear();
    for (const id of agentIds) this.owned.add(id);
  }

  own(agentId: string): void {
    this.owned.add(agentId);
  }

  disown(agentId: string): void {
    this.owned.delete(agentId);
  }

  /** Another node enqueued for this agent. */
  wake(agentId: string): void {
    if (this.wantsWorker(agentId)) this.ensureWorker(agentId);
  }

  private wantsWorker(agentId: string): boolean {
    return this.deps.hub.has(agentId) || this.owned.has(agentId);
  }

  ensureWorker(agentId: string): void {
    // A Subscribe stream open here always gets its worker; HTTP delivery only where the role runs workers.
    if (this.closed || this.workers.has(agentId) || (!this.deps.runsWorkers && !this.deps.hub.has(agentId))) return;
    const worker = new Worker(queueName(agentId), (job, token) => this.process(agentId, job, token), {
      connection: workerConnection(this.deps.redisUrl),
      concurrency: this.deps.concurrency,
      autorun: !this.paused,
    });
    worker.on('failed', (job, error) => void this.failed(agentId, job, error));
    worker.on('error', (error) => this.deps.logger.warn({ err: error, agentId }, 'delivery worker error'));
    this.workers.set(agentId, worker);
  }

  async stopWorker(agentId: string): Promise<void> {
    const worker = this.workers.get(agentId);
    this.workers.delete(agentId);
    await worker?.close();
  }

  get workerCount(): number {
    return this.workers.size;
  }

  /** An agent that left: its queue goes with it. */
  async removeAgent(agentId: string): Promise<void> {
    this.owned.delete(agentId);
    await this.stopWorker(agentId);
    await this.queue(agentId)
      .obliterate({ force: true })
      .catch(() => undefined);
    await this.queues.get(agentId)?.close();
    this.queues.delete(agentId);
  }

  private async process(agentId: string, job: Job<DeliveryJob>, token?: string): Promise<void> {
    const message = job.data;
    const attempt = job.attemptsMade + 1;
    if (message.expires_at !== null && message.expires_at < Date.now()) {
      await this.deps.messages.markExpired(message.id);
      this.deps.tracker.finished(agentId);
      return;
    }
    const timeoutMs = this.deps.settings.value.ack_timeout_ms;
    const started = performance.now();
    const subscriber = this.deps.hub.pick(agentId);
    if (subscriber) {
      await subscriber.deliver(
        {
          id: message.id,
          message_id: message.message_id,
          from: message.from ?? '',
          capability: message.capability ?? '',
          payload_json: JSON.stringify(message.payload ?? null),
          attempt,
          control: '',
        },
        timeoutMs,
      );
    } else {
      const elsewhere = await this.deps.redis.get(presenceKey(agentId)).catch(() => null);
      if (elsewhere && elsewhere !== this.deps.nodeId) {
        // The agent subscribes on another node: hand the job back without spending an attempt.
        await job.moveToDelayed(Date.now() + 20, token);
        if (!this.owned.has(agentId)) void this.stopWorker(agentId);
        throw new DelayedError();
      }
      const endpoint = await this.deps.endpointOf(agentId);
      if (!endpoint) {
        // Nobody to deliver to yet: the message waits (no attempt spent) until a subscriber
        // arrives (which promotes it at once) or its TTL runs out.
        await job.moveToDelayed(Date.now() + WAIT_FOR_SUBSCRIBER_MS, token);
        throw new DelayedError();
      }
      await this.deps.post(
        endpoint,
        { id: message.id, message_id: message.message_id, from: message.from, capability: message.capability, payload: message.payload, attempt },
        timeoutMs,
      );
    }
    this.deps.tracker.finished(agentId, performance.now() - started);
    this.acked(message.id);
  }

  private async failed(agentId: string, job: Job<DeliveryJob> | undefined, error: Error): Promise<void> {
    if (!job || error instanceof DelayedError) return;
    const reason = error.message || String(error);
    try {
      if (job.attemptsMade >= (job.opts.attempts ?? 1)) {
        this.deps.tracker.finished(agentId);
        await this.deps.messages.markDead(job.data.id, job.attemptsMade, reason);
      } else {
        await this.deps.messages.markAttempt(job.data.id, job.attemptsMade, reason);
      }
    } catch (stateError) {
      this.deps.logger.warn({ err: stateError, messageId: job.data.id }, 'could not record a delivery failure');
    }
  }

  /** Acknowledgements are written to Postgres in small batches. */
  private acked(id: string): void {
    this.ackBuffer.push(id);
    if (this.ackBuffer.length >= 200) void this.flushAcks();
    else this.ackTimer ??= setTimeout(() => void this.flushAcks(), 5);
  }

  flushAcks(): Promise<void> {
    clearTimeout(this.ackTimer);
    this.ackTimer = undefined;
    const ids = this.ackBuffer.splice(0);
    if (ids.length === 0) return this.flushing;
    this.flushing = this.flushing
      .then(() => this.deps.messages.markAcked(ids, new Date()))
      .catch((error) => this.deps.logger.warn({ err: error, count: ids.length }, 'could not record acknowledgements'));
    return this.flushing;
  }

  private async subscriptionChanged(agentId: string, present: boolean): Promise<void> {
    if (present) {
      await this.deps.redis.set(presenceKey(agentId), this.deps.nodeId, 'PX', PRESENCE_MS).catch(() => undefined);
      this.ensureWorker(agentId);
      // Messages waiting for a subscriber (or backing off after a dropped one) go out now.
      await this.queue(agentId)
        .promoteJobs()
        .catch(() => undefined);
    } else {
      await this.deps.redis
        .eval("if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0", 1, presenceKey(agentId), this.deps.nodeId)
        .catch(() => undefined);
      if (!this.owned.has(agentId)) await this.stopWorker(agentId);
    }
  }

  private async refreshPresence(): Promise<void> {
    for (const agentId of this.deps.hub.agents()) await this.deps.redis.set(presenceKey(agentId), this.deps.nodeId, 'PX', PRESENCE_MS).catch(() => undefined);
  }

  /** Drain: no new jobs start; resolves when the running ones have finished. */
  async pause(): Promise<void> {
    this.paused = true;
    await Promise.all([...this.workers.values()].map((worker) => worker.pause()));
    await this.flushAcks();
  }

  async counts(): Promise<{ waiting: number; active: number; delayed: number; failed: number; completed: number }> {
    const totals = { waiting: 0, active: 0, delayed: 0, failed: 0, completed: 0 };
    for (const queue of this.queues.values()) {
      const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'failed', 'completed');
      for (const key of Object.keys(totals) as Array<keyof typeof totals>) totals[key] += counts[key] ?? 0;
    }
    return totals;
  }

  /** Drops dead-letter jobs older than `graceMs` from the agents' queues this node knows. */
  async cleanFailed(graceMs: number): Promise<number> {
    let removed = 0;
    for (const queue of this.queues.values()) removed += (await queue.clean(graceMs, 10_000, 'failed').catch(() => [])).length;
    return removed;
  }

  /** Removes a finished job of a dead letter so it can be added again under the same id. */
  async forget(agentId: string, id: string): Promise<void> {
    const job = await this.queue(agentId).getJob(id);
    await job?.remove().catch(() => undefined);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.presenceTimer);
    await Promise.all([...this.workers.values()].map((worker) => worker.close()));
    this.workers.clear();
    await this.flushAcks();
    await Promise.all([...this.queues.values()].map((queue) => queue.close()));
    this.queues.clear();
    await this.producer.quit().catch(() => this.producer.disconnect());
  }
}
