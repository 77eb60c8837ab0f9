import type { Logger } from '@platform/telemetry';
import type { Redis } from 'ioredis';

const CHANNEL = 'workers:cancel';

/**
 * Cancels reach every worker process through Redis pub/sub: each process aborts the in-flight
 * attempts it holds for the named tasks (their HTTP requests really abort).
 */
export class CancelBus {
  private readonly inFlight = new Map<string, AbortController>();
  private subscriber?: Redis;

  constructor(
    private readonly redis: Redis,
    private readonly logger: Logger,
  ) {}

  /** Subscribes this process (worker roles only). */
  async listen(): Promise<void> {
    this.subscriber = this.redis.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null });
    this.subscriber.on('error', (error) => this.logger.warn({ err: error }, 'cancel subscriber error'));
    this.subscriber.on('message', (_channel, message) => {
      try {
        const { taskIds } = JSON.parse(message) as { taskIds: string[] };
        for (const id of taskIds) this.inFlight.get(id)?.abort(new CancelledError());
      } catch (error) {
        this.logger.warn({ err: error }, 'bad cancel message');
      }
    });
    await this.subscriber.subscribe(CHANNEL);
  }

  /** The subscriber connection (worker roles, once listening), for the Redis watch. */
  get connection(): Redis | undefined {
    return this.subscriber;
  }

  track(taskId: string, controller: AbortController): void {
    this.inFlight.set(taskId, controller);
  }

  untrack(taskId: string): void {
    this.inFlight.delete(taskId);
  }

  get active(): number {
    return this.inFlight.size;
  }

  async publish(taskIds: string[]): Promise<void> {
    if (taskIds.length === 0) return;
    // This process's own attempts abort at once, the others when the message arrives.
    for (const id of taskIds) this.inFlight.get(id)?.abort(new CancelledError());
    await this.redis.publish(CHANNEL, JSON.stringify({ taskIds }));
  }

  async close(): Promise<void> {
    await this.subscriber?.quit().catch(() => undefined);
  }
}

export class CancelledError extends Error {
  override name = 'CancelledError';
  constructor() {
    super('cancelled by the operator');
  }
}
export class TimeoutError extends Error {
  override name = 'TimeoutError';
  constructor(ms: number) {
    super(`timed out after ${ms} ms`);
  }
}
export class LeaseLostError extends Error {
  override name = 'LeaseLostError';
  constructor() {
    super('lease lost: another worker owns the step now');
  }
}
