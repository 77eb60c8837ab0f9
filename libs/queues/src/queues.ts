import { context, propagation } from '@opentelemetry/api';
import { Queue, UnrecoverableError, Worker, type JobsOptions, type Processor } from 'bullmq';
import type { z } from 'zod';
import { bullmqConnection } from '@platform/data';

/** A queue's name (prefixed with its owning service) and the zod schema of its job payloads. */
export interface QueueDefinition<S extends z.ZodType> {
  name: string;
  payload: S;
}

export function defineQueue<S extends z.ZodType>(name: string, payload: S): QueueDefinition<S> {
  return { name, payload };
}

/** Retries with backoff; failed jobs are kept as the dead-letter list an operator can retry. */
export const defaultJobOptions: JobsOptions = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: { count: 1000, age: 24 * 3600 },
  removeOnFail: false,
};

interface Envelope {
  payload: unknown;
  trace?: Record<string, string>;
}

export class TypedQueue<S extends z.ZodType> {
  readonly queue: Queue;

  constructor(
    readonly definition: QueueDefinition<S>,
    redisUrl: string,
  ) {
    this.queue = new Queue(definition.name, { connection: bullmqConnection(redisUrl, 'producer'), defaultJobOptions });
  }

  /** Adds a job carrying the caller's trace context; a `jobId` makes the add idempotent. */
  async add(jobName: string, payload: z.input<S>, options: JobsOptions = {}) {
    const trace: Record<string, string> = {};
    propagation.inject(context.active(), trace);
    const envelope: Envelope = { payload: this.definition.payload.parse(payload), trace };
    return this.queue.add(jobName, envelope, options);
  }

  /** Adds many jobs in one round trip to Redis, each carrying the caller's trace context. */
  async addBulk(jobs: ReadonlyArray<{ name: string; payload: z.input<S>; options?: JobsOptions }>) {
    const trace: Record<string, string> = {};
    propagation.inject(context.active(), trace);
    return this.queue.addBulk(
      jobs.map((job) => ({ name: job.name, data: { payload: this.definition.payload.parse(job.payload), trace } satisfies Envelope, opts: job.options })),
    );
  }

  /**
   * Resolves once the producer's connection is up: at once when it is, else at the reconnect.
   * A caller bounds the wait (producers have no offline queue, so an add while down fails at once).
   */
  async connected(): Promise<void> {
    const client = await this.queue.backend.client;
    if (client.status === 'ready') return;
    this.reconnected ??= new Promise<void>((resolve) =>
      client.once('ready', () => {
        this.reconnected = undefined;
        resolve();
      }),
    );
    return this.reconnected;
  }

  private reconnected?: Promise<void>;

  close(): Promise<void> {
    return this.queue.close();
  }
}

export interface WorkerOptions {
  concurrency?: number;
  /** Start without taking jobs; call `worker.resume()` once the service is ready. */
  autorun?: boolean;
}

/**
 * A worker whose handler receives the parsed payload in the producer's trace context. A payload
 * that does not parse can never succeed, so it fails at once instead of retrying.
 */
export function createWorker<S extends z.ZodType>(
  definition: QueueDefinition<S>,
  redisUrl: string,
  handler: (payload: z.output<S>, job: Parameters<Processor>[0]) => Promise<unknown>,
  options: WorkerOptions = {},
): Worker {
  return new Worker(
    definition.name,
    async (job) => {
      const envelope = job.data as Envelope;
      const parsed = definition.payload.safeParse(envelope?.payload);
      if (!parsed.success) throw new UnrecoverableError(`Invalid payload for ${definition.name}: ${parsed.error.message}`);
      const parent = propagation.extract(context.active(), envelope.trace ?? {});
      return context.with(parent, () => handler(parsed.data, job));
    },
    { connection: bullmqConnection(redisUrl, 'worker'), concurrency: options.concurrency ?? 4, autorun: options.autorun ?? true },
  );
}
