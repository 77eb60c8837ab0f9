import type { mcpRegistry } from '@platform/contracts';
import type { Logger } from '@platform/telemetry';
import type { Redis } from 'ioredis';

export type RegistryEvent = mcpRegistry.RegistryEvent;
type Listener = (event: RegistryEvent) => void;

/**
 * Registry events over Redis pub/sub, so that whichever replica produced an event, every
 * replica's stream clients (and supervisors) hear it.
 */
export class EventBus {
  private readonly listeners = new Set<Listener>();
  private subscriber?: Redis;

  constructor(
    private readonly redis: Redis,
    private readonly channel: string,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    this.subscriber = this.redis.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null });
    this.subscriber.on('message', (_channel: string, message: string) => {
      let event: RegistryEvent;
      try {
        event = JSON.parse(message) as RegistryEvent;
      } catch {
        return;
      }
      for (const listener of this.listeners) {
        try {
          listener(event);
        } catch (error) {
          this.logger.warn({ err: error }, 'registry event listener failed');
        }
      }
    });
    this.subscriber.on('error', (error) => this.logger.warn({ err: error }, 'event subscriber error'));
    await this.subscriber.subscribe(this.channel);
  }

  on(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Publishing is best effort: a Redis hiccup must not fail the request that caused the event. */
  async publish(event: RegistryEvent): Promise<void> {
    try {
      await this.redis.publish(this.channel, JSON.stringify(event));
    } catch (error) {
      this.logger.warn({ err: error, type: event.type }, 'could not publish a registry event');
    }
  }

  /** Several events in one round trip. */
  async publishAll(events: RegistryEvent[]): Promise<void> {
    if (events.length === 0) return;
    try {
      const pipeline = this.redis.pipeline();
      for (const event of events) pipeline.publish(this.channel, JSON.stringify(event));
      await pipeline.exec();
    } catch (error) {
      this.logger.warn({ err: error, count: events.length }, 'could not publish registry events');
    }
  }

  async stop(): Promise<void> {
    this.listeners.clear();
    await this.subscriber?.quit().catch(() => undefined);
  }
}
