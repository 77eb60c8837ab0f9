import type { Logger } from '@platform/telemetry';
import type { Redis } from 'ioredis';

export interface StreamEvent {
  type: string;
  timestamp: string;
  [key: string]: unknown;
}

const CHANNEL = 'workflow-engine:events';

/**
 * Execution and batch events fanned out over Redis pub/sub, so a stream on any replica sees what a
 * worker on any other replica does. Topics are `execution:<id>` and `batch:<id>`.
 */
export class EventBus {
  private readonly listeners = new Map<string, Set<(event: StreamEvent) => void>>();
  private readonly subscriber: Redis;
  private ready?: Promise<unknown>;

  constructor(
    private readonly redis: Redis,
    private readonly logger: Logger,
  ) {
    this.subscriber = redis.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null });
    this.subscriber.on('error', (error) => logger.debug({ err: error }, 'event subscriber error'));
    this.subscriber.on('message', (_channel: string, message: string) => {
      let parsed: { topic: string; event: StreamEvent };
      try {
        parsed = JSON.parse(message);
      } catch {
        return;
      }
      for (const listener of this.listeners.get(parsed.topic) ?? []) listener(parsed.event);
    });
  }

  /** Subscribes once per process; resolves when Redis confirms. */
  start(): Promise<unknown> {
    this.ready ??= this.subscriber.subscribe(CHANNEL);
    return this.ready;
  }

  async publish(topic: string, event: StreamEvent): Promise<void> {
    try {
      await this.redis.publish(CHANNEL, JSON.stringify({ topic, event }));
    } catch (error) {
      // The record of truth is Postgres: a stream that misses a live event still gets it as history.
      this.logger.warn({ err: error, topic, type: event.type }, 'event not published');
    }
  }

  /** Listens to one topic; returns the unsubscribe. */
  async on(topic: string, listener: (event: StreamEvent) => void): Promise<() => void> {
    await this.start();
    let set = this.listeners.get(topic);
    if (!set) this.listeners.set(topic, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(topic);
    };
  }

  async close(): Promise<void> {
    this.listeners.clear();
    this.subscriber.disconnect();
  }
}
