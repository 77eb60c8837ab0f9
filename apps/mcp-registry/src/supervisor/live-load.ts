import type { Redis } from 'ioredis';
import { RegistryInstance } from './instance';

/**
 * Requests in flight per connection, across replicas: each instance counts its own in a Redis hash
 * that expires with its heartbeat, so a crashed replica's requests stop counting.
 */
export class LiveLoad {
  private readonly local = new Map<string, number>();

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly instance: RegistryInstance,
  ) {
    instance.onBeat((client) => client.pexpire(this.key(instance.id), RegistryInstance.ttlMs));
  }

  private key(instanceId: string): string {
    return `${this.prefix}:load:${instanceId}`;
  }

  async begin(connectionId: string): Promise<void> {
    this.local.set(connectionId, (this.local.get(connectionId) ?? 0) + 1);
    await this.redis
      .multi()
      .hincrby(this.key(this.instance.id), connectionId, 1)
      .pexpire(this.key(this.instance.id), RegistryInstance.ttlMs)
      .exec()
      .catch(() => undefined);
  }

  async end(connectionId: string): Promise<void> {
    const left = (this.local.get(connectionId) ?? 1) - 1;
    if (left > 0) this.local.set(connectionId, left);
    else this.local.delete(connectionId);
    await this.redis.hincrby(this.key(this.instance.id), connectionId, -1).catch(() => undefined);
  }

  /** Active requests per connection id, summed over the live instances. */
  async snapshot(): Promise<Map<string, number>> {
    const totals = new Map<string, number>();
    let instances: string[];
    try {
      instances = await this.instance.liveInstances();
    } catch {
      return new Map(this.local);
    }
    if (!instances.includes(this.instance.id)) instances.push(this.instance.id);
    const pipeline = this.redis.pipeline();
    for (const id of instances) pipeline.hgetall(this.key(id));
    const results = (await pipeline.exec().catch(() => null)) ?? [];
    for (const [error, hash] of results) {
      if (error || !hash) continue;
      for (const [connectionId, count] of Object.entries(hash as Record<string, string>)) {
        const value = Number(count);
        if (value > 0) totals.set(connectionId, (totals.get(connectionId) ?? 0) + value);
      }
    }
    return totals;
  }
}
