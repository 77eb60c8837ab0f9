import type { Logger } from '@platform/telemetry';
import type { Redis } from 'ioredis';
import { pingEvery } from './redis';

/**
 * Mesh-wide notices over Redis pub/sub (routing invalidated, an agent removed, settings changed,
 * work for an agent): each node acts on the others' notices; Postgres stays the record of truth.
 */
export class MeshBus {
  private readonly subscriber: Redis;
  private readonly handlers = new Map<string, Array<(data: string) => void>>();
  private readonly stopPing: () => void;

  constructor(
    private readonly redis: Redis,
    private readonly nodeId: string,
    private readonly logger: Logger,
    pingMs: number,
  ) {
    this.subscriber = redis.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null, enableAutoPipelining: false, enableReadyCheck: false });
    // An idle subscriber would never notice its connection died: a PING now and then finds it.
    this.stopPing = pingEvery(this.subscriber, pingMs);
    this.subscriber.on('error', () => undefined);
    this.subscriber.on('message', (channel: string, message: string) => {
      const at = message.indexOf('|');
      const from = message.slice(0, at);
      const data = message.slice(at + 1);
      if (from === this.nodeId) return;
      for (const handler of this.handlers.get(channel) ?? []) {
        try {
          handler(data);
        } catch (error) {
          this.logger.warn({ err: error, channel }, 'mesh notice handler failed');
        }
      }
    });
  }

  async on(channel: string, handler: (data: string) => void): Promise<void> {
    const list = this.handlers.get(channel) ?? [];
    list.push(handler);
    this.handlers.set(channel, list);
    if (list.length === 1) await this.subscriber.subscribe(channel);
  }

  /** Tells the other nodes; a Redis outage loses the notice, never the request. */
  async publish(channel: string, data = ''): Promise<void> {
    await this.redis.publish(channel, `${this.nodeId}|${data}`).catch((error) => this.logger.warn({ err: error, channel }, 'mesh notice not sent'));
  }

  async close(): Promise<void> {
    this.stopPing();
    await this.subscriber.quit().catch(() => this.subscriber.disconnect());
  }
}

/** The channels of one cluster (MESH_CLUSTER). */
export const channelsOf = (cluster: string) =>
  ({
    routing: `mesh:${cluster}:routing:invalidate`,
    agentRemoved: `mesh:${cluster}:agent:removed`,
    reregister: `mesh:${cluster}:agent:reregister`,
    settings: `mesh:${cluster}:settings:changed`,
    wake: `mesh:${cluster}:deliver:wake`,
    ownership: `mesh:${cluster}:cluster:ownership`,
  }) as const;
