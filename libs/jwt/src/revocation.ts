import type { Redis } from 'ioredis';

/**
 * Revoked access tokens, shared through Redis: a sorted set of `jti` scored by the token's expiry
 * (so entries prune themselves once the token would be dead anyway) and a pub/sub channel that
 * tells every verifier at once. Verifiers keep the set in memory, so the check on the hot path
 * costs no round trip; a periodic resync covers messages missed during a reconnect.
 */
export const REVOKED_TOKENS_KEY = 'auth:revoked-tokens';
export const REVOKED_TOKENS_CHANNEL = 'auth:revoked-tokens';

export interface RevocationCheck {
  isRevoked(jti: string): boolean;
}

/** Records a revocation; every RedisRevocationList sees it within milliseconds. */
export async function publishRevocation(redis: Redis, jti: string, expiresAtSeconds: number): Promise<void> {
  await redis.zadd(REVOKED_TOKENS_KEY, expiresAtSeconds, jti);
  await redis.publish(REVOKED_TOKENS_CHANNEL, jti);
}

/** Whether Redis holds a revocation for `jti` (an authoritative check, one round trip). */
export async function isRevokedInRedis(redis: Redis, jti: string): Promise<boolean> {
  return (await redis.zscore(REVOKED_TOKENS_KEY, jti)) !== null;
}

export class RedisRevocationList implements RevocationCheck {
  private revoked = new Set<string>();
  private timer?: NodeJS.Timeout;
  private subscriber?: Redis;

  constructor(
    private readonly redis: Redis,
    private readonly resyncIntervalMs = 5000,
  ) {}

  async start(): Promise<void> {
    this.subscriber = this.redis.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null }); // subscribers wait for their connection
    this.subscriber.on('message', (_channel: string, jti: string) => this.revoked.add(jti));
    this.subscriber.on('error', () => undefined); // reconnects by itself; the resync fills the gap
    await this.subscriber.subscribe(REVOKED_TOKENS_CHANNEL);
    await this.resync();
    this.timer = setInterval(() => void this.resync().catch(() => undefined), this.resyncIntervalMs);
    this.timer.unref();
  }

  async resync(): Promise<void> {
    const now = Math.floor(Date.now() / 1000);
    await this.redis.zremrangebyscore(REVOKED_TOKENS_KEY, '-inf', now - 60);
    const jtis = await this.redis.zrangebyscore(REVOKED_TOKENS_KEY, now - 60, '+inf');
    this.revoked = new Set(jtis);
  }

  isRevoked(jti: string): boolean {
    return this.revoked.has(jti);
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.subscriber?.disconnect();
  }
}
