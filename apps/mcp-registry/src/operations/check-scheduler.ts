import { defineQueue, type QueueDefinition, type TypedQueue } from '@platform/queues';
import type { QueueRegistry } from '@platform/service-kit';
import { type Logger } from '@platform/telemetry';
import type { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';

export const HealthCheckJob = z.object({ connectionId: z.string().uuid() });

interface Schedulable {
  id: string;
  status: string;
  healthCheckEnabled: boolean;
  healthCheckInterval: number;
  healthCheckTimeout: number;
}

/**
 * Scheduled checks through BullMQ: one job scheduler per connection (id `connection:<id>`), so
 * however many replicas run, each interval produces one job; a Redis lock per connection keeps a
 * slow check from overlapping the next one. The queue and its worker are the bootstrap's
 * (`infra.queues`), which also closes them on shutdown.
 */
export class CheckScheduler {
  private readonly definition: QueueDefinition<typeof HealthCheckJob>;
  private readonly queue: TypedQueue<typeof HealthCheckJob>;

  constructor(
    queueName: string,
    private readonly queues: QueueRegistry,
    private readonly redis: Redis,
    private readonly lockPrefix: string,
    private readonly logger: Logger,
  ) {
    this.definition = defineQueue(queueName, HealthCheckJob);
    this.queue = queues.producer(this.definition);
  }

  private static schedulerId(connectionId: string): string {
    return `connection:${connectionId}`;
  }

  /** Creates, moves or removes the connection's schedule to match its settings. */
  async sync(connection: Schedulable): Promise<void> {
    if (!connection.healthCheckEnabled || connection.status === 'disconnected') return this.unschedule(connection.id);
    await this.queue.queue.upsertJobScheduler(
      CheckScheduler.schedulerId(connection.id),
      { every: connection.healthCheckInterval * 1000 },
      {
        name: 'scheduled-check',
        data: { payload: { connectionId: connection.id }, trace: {} },
        // A failed check is recorded as a result, not retried; keep little history.
        opts: { attempts: 1, removeOnComplete: 100, removeOnFail: 100 },
      },
    );
  }

  async unschedule(connectionId: string): Promise<void> {
    await this.queue.queue.removeJobScheduler(CheckScheduler.schedulerId(connectionId));
  }

  /** Consumes scheduled checks (roles `all` and `worker`; the bootstrap starts it once the service is up). */
  startWorker(run: (connectionId: string) => Promise<unknown>, concurrency: number): void {
    const worker = this.queues.process(
      this.definition,
      async ({ connectionId }) => {
        const token = randomUUID();
        const key = `${this.lockPrefix}:check-lock:${connectionId}`;
        const acquired = await this.redis.set(key, token, 'PX', 130_000, 'NX');
        if (!acquired) return { skipped: 'a check of this connection is already running' };
        try {
          return await run(connectionId);
        } finally {
          await this.redis.eval("if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end", 1, key, token);
        }
      },
      { concurrency },
    );
    worker?.on('failed', (job, error) => this.logger.warn({ jobId: job?.id, err: error }, 'scheduled health check failed'));
  }
}
