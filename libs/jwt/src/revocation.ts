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
  /** Whether a token `jti`, or a name that covers many tokens (apiKeyRevocationName), is revoked. */
  isRevoked(jti: string): boolean;
}

/** The name under which every token issued in exchange for one API key is revoked. */
export function apiKeyRevocationName(apiKeyId: string): string {
  return `api-key:${apiKeyId}`;
}

/**
 * Revokes every token issued for an API key from `fromSeconds` on (now, or the end of a rotation's
 * grace period). `untilSeconds` is when the last such token expires, after which the entry prunes
 * itself. The member is `api-key:<id>@<from>`; verifiers read the time from it.
 */
export async function publishApiKeyRevocation(redis: Redis, apiKeyId: string, fromSeconds: number, untilSeconds: number): Promise<void> {
  const member = `${apiKeyRevocationName(apiKeyId)}@${Math.floor(fromSeconds)}`;
  await redis.zadd(REVOKED_TOKENS_KEY, Math.ceil(untilSeconds), member);
  await redis.publish(REVOKED_TOKENS_CHANNEL, member);
}

const TIMED_MEMBER = /^(.+)@(\d+)$/;

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
  /** Names revoked from a time on (epoch seconds): API keys, at once or after a grace period. */
  private revokedFrom = new Map<string, number>();
  private timer?: NodeJS.Timeout;
  private subscriber?: Redis;

  constructor(
    private readonly redis: Redis,
    private readonly resyncIntervalMs = 5000,
  ) {}

  async start(): Promise<void> {
    this.subscriber = this.redis.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null }); // subscribers wait for their connection
    this.subscriber.on('message', (_channel: string, member: string) => this.add(member, this.revoked, this.revokedFrom));
    this.subscriber.on('error', () => undefined); // reconnects by itself; the resync fills the gap
    await this.subscriber.subscribe(REVOKED_TOKENS_CHANNEL);
    await this.resync();
    this.timer = setInterval(() => void this.resync().catch(() => undefined), this.resyncIntervalMs);
    this.timer.unref();
  }

  async resync(): Promise<void> {
    const now = Math.floor(Date.now() / 1000);
    await this.redis.zremrangebyscore(REVOKED_TOKENS_KEY, '-inf', now - 60);
    const members = await this.redis.zrangebyscore(REVOKED_TOKENS_KEY, now - 60, '+inf');
    const revoked = new Set<string>();
    const revokedFrom = new Map<string, number>();
    for (const member of members) this.add(member, revoked, revokedFrom);
    this.revoked = revoked;
    this.revokedFrom = revokedFrom;
  }

  private add(member: string, revoked: Set<string>, revokedFrom: Map<string, number>): void {
    const timed = TIMED_MEMBER.exec(member);
    if (!timed) {
      revoked.add(member);
      return;
    }
    const [, name, from] = timed as unknown as [string, string, string];
    revokedFrom.set(name, Math.min(Number(from), revokedFrom.get(name) ?? Infinity));
  }

  isRevoked(jti: string): boolean {
    if (this.revoked.has(jti)) return true;
    const from = this.revokedFrom.get(jti);
    return from !== undefined && from <= Date.now() / 1000;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.subscriber?.disconnect();
  }
}
