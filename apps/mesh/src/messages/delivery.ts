import type { Logger } from '@platform/telemetry';
import { DelayedError, Queue, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import type { SubscriberHub } from '../grpc/subscribers';
import type { LoadTracker } from '../routing/load';
import { redisTimeouts, workerConnection } from '../redis';
import type { SettingsService } from '../settings/settings.service';
import type { MessageRow, MessagesRepository, NewMessage } from './messages.repository';

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
  /**
   * How long a delivery's job stays locked without its worker renewing it: after a node dies, its
   * deliveries in flight go back to their queue once this has passed (and a check ran).
   */
  lockMs: number;
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
const STALLS_BEFORE_DEAD = 5;

/** The attempt a delivery is: failed ones and ones whose node died (stalled) before it. */
const attemptOf = (job: Job) => job.attemptsMade + (job.stalledCounter ?? 0) + 1;
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
  /** Acknowledgements waiting to be written together (a few ms), and the write of the one before. */
  private ackBatch?: { items: Array<{ id: string; attempt: number }>; flush: () => void; written: Promise<void> };
  private flushing: Promise<void> = Promise.resolve();
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
      // A job whose worker died (kill -9, a lost node) is taken back after its lock expires and
      // delivered again; a message whose delivery kills its node again and again ends up dead.
      lockDuration: this.deps.lockMs,
      stalledInterval: this.deps.lockMs,
      maxStalledCount: STALLS_BEFORE_DEAD,
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
    const attempt = attemptOf(job);
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
    // Postgres, the record of truth, has the acknowledgement before the job completes: a node dying
    // in between leaves the job to be taken back, never a message queued in Postgres with no job.
    await this.acked(message.id, attempt);
  }

  private async failed(agentId: string, job: Job<DeliveryJob> | undefined, error: Error): Promise<void> {
    if (!job || error instanceof DelayedError) return;
    const reason = error.message || String(error);
    try {
      const attempts = attemptOf(job) - 1;
      // Out of attempts, or failed for good otherwise (stalled too often: its node kept dying).
      if (job.attemptsMade >= (job.opts.attempts ?? 1) || (await job.isFailed().catch(() => false))) {
        this.deps.tracker.finished(agentId);
        await this.deps.messages.markDead(job.data.id, attempts, reason);
      } else {
        await this.deps.messages.markAttempt(job.data.id, attempts, reason);
      }
    } catch (stateError) {
      this.deps.logger.warn({ err: stateError, messageId: job.data.id }, 'could not record a delivery failure');
    }
  }

  /** Acknowledgements are written to Postgres in small batches; resolves once this one is written. */
  private acked(id: string, attempt: number): Promise<void> {
    let batch = this.ackBatch;
    if (!batch) {
      const items: Array<{ id: string; attempt: number }> = [];
      let start!: () => void;
      const due = new Promise<void>((resolve) => (start = resolve));
      const timer = setTimeout(() => start(), 5);
      const created = {
        items,
        flush: () => {
          clearTimeout(timer);
          start();
        },
        written: due.then(() => {
          if (this.ackBatch === created) this.ackBatch = undefined;
          this.flushing = this.flushing.catch(() => undefined).then(() => this.deps.messages.markAcked(items, new Date()));
          return this.flushing;
        }),
      };
      batch = this.ackBatch = created;
    }
    batch.items.push({ id, attempt });
    if (batch.items.length >= 200) batch.flush();
    return batch.written;
  }

  /** Writes the acknowledgements waiting now. */
  async flushAcks(): Promise<void> {
    const batch = this.ackBatch;
    batch?.flush();
    await batch?.written.catch((error) => this.deps.logger.warn({ err: error }, 'could not record acknowledgements'));
    await this.flushing.catch(() => undefined);
  }

  /**
   * After a node died: messages Postgres still has as pending get their job back if it was never
   * added (stored, then the node died before queueing it), and those whose job failed for good
   * become dead letters (the node died before recording it). Jobs still waiting, delayed or active
   * are left to the workers (an active one whose node died is taken back when its lock expires).
   */
  async recover(rows: readonly MessageRow[]): Promise<{ requeued: number; dead: number }> {
    const missing: MessageRow[] = [];
    let dead = 0;
    for (const row of rows) {
      const job = await this.queue(row.agentId).getJob(row.id);
      if (!job) missing.push(row);
      else if ((await job.getState()) === 'failed') {
        await this.deps.messages.markDead(row.id, attemptOf(job) - 1, job.failedReason || 'delivery failed');
        dead += 1;
      }
    }
    if (missing.length > 0) await this.enqueueMany(missing);
    return { requeued: missing.length, dead };
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
