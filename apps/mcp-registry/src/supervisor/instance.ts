import type { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import os from 'node:os';

const HEARTBEAT_MS = 10_000;
const TTL_MS = 30_000;

/**
 * This registry process as its peers see it: an id, and a heartbeat in Redis that says it is
 * alive. Live load counters and process records are keyed by it.
 */
export class RegistryInstance {
  readonly id = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  readonly host = os.hostname();
  private timer?: NodeJS.Timeout;
  private readonly beats: Array<(redis: Redis) => unknown> = [];

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  get instancesKey(): string {
    return `${this.prefix}:instances`;
  }

  /** Something else to refresh with each heartbeat (the expiry of this instance's keys). */
  onBeat(beat: (redis: Redis) => unknown): void {
    this.beats.push(beat);
  }

  async start(): Promise<void> {
    await this.beat();
    this.timer = setInterval(() => void this.beat().catch(() => undefined), HEARTBEAT_MS);
    this.timer.unref();
  }

  private async beat(): Promise<void> {
    const now = Date.now();
    await this.redis.zadd(this.instancesKey, now, this.id);
    // Instances that died without saying goodbye fall out after a while.
    await this.redis.zremrangebyscore(this.instancesKey, '-inf', now - 10 * TTL_MS);
    for (const beat of this.beats) await beat(this.redis);
  }

  /** Instances whose heartbeat is fresh. */
  async liveInstances(): Promise<string[]> {
    return this.redis.zrangebyscore(this.instancesKey, Date.now() - TTL_MS, '+inf');
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.redis.zrem(this.instancesKey, this.id).catch(() => undefined);
  }

  static readonly ttlMs = TTL_MS;
}
