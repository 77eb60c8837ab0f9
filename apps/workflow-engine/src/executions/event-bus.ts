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
      let parsed: { topic: string; events: StreamEvent[] };
      try {
        parsed = JSON.parse(message);
      } catch {
        return;
      }
      if (!Array.isArray(parsed.events)) return;
      for (const event of parsed.events) for (const listener of this.listeners.get(parsed.topic) ?? []) listener(event);
    });
  }

  /** Subscribes once per process; resolves when Redis confirms. */
  start(): Promise<unknown> {
    this.ready ??= this.subscriber.subscribe(CHANNEL);
    return this.ready;
  }

  private pending = new Map<string, StreamEvent[]>();
  private flushing?: Promise<void>;

  /** Queues an event; the events of one topic raised in the same turn go out as one message, in order. */
  publish(topic: string, event: StreamEvent): Promise<void> {
    const list = this.pending.get(topic);
    if (list) list.push(event);
    else this.pending.set(topic, [event]);
    this.flushing ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.flush());
    return this.flushing;
  }

  private async flush(): Promise<void> {
    const batches = this.pending;
    this.pending = new Map();
    this.flushing = undefined;
    await Promise.all(
      [...batches].map(async ([topic, events]) => {
        try {
          await this.redis.publish(CHANNEL, JSON.stringify({ topic, events }));
        } catch (error) {
          // The record of truth is Postgres: a stream that misses a live event still gets it as history.
          this.logger.warn({ err: error, topic }, 'events not published');
        }
      }),
    );
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
