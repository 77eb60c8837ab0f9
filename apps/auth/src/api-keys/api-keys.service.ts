import { badRequest, notFound } from '@platform/http';
import { publishApiKeyRevocation } from '@platform/jwt';
import type { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import type { AuditLog, AuditOrigin } from '../audit/audit.service';
import { equalHashes, sha256 } from '../crypto/opaque-tokens';
import type { ApiKeyRow, ApiKeysRepository } from './api-keys.repository';
import { describe } from './api-keys.view';

const KEY_FORMAT = /^ap_([A-Za-z0-9]{12})_([A-Za-z0-9_-]{43})$/;

/** When a key stops working: its revocation or its expiry, whichever comes first. */
export function endOf(key: Pick<ApiKeyRow, 'revokedAt' | 'expiresAt'>): Date | null {
  const ends = [key.revokedAt, key.expiresAt].filter((end): end is Date => end !== null);
  return ends.length === 0 ? null : new Date(Math.min(...ends.map((end) => end.getTime())));
}

/**
 * Service API keys `ap_<prefix>_<secret>`: the prefix finds the row, the secret is kept only as
 * its SHA-256 (256 random bits need no slow hash) and shown once, at issue or rotation. The access
 * tokens a key is exchanged for name it (`api_key_id`) and never outlive it: revoking or rotating
 * the key publishes its revocation to every verifier, as a revoked access token is.
 */
export class ApiKeys {
  constructor(
    private readonly keys: ApiKeysRepository,
    private readonly audit: AuditLog,
    private readonly redis: Redis,
    /** The longest an access token lives: how long a key's revocation must be remembered. */
    private readonly tokenTtlSeconds: number,
  ) {}

  async issue(input: { service: string; permissions: string[]; expiresAt?: string }, createdBy: string, origin: AuditOrigin, rotatedFrom?: string) {
    if (input.expiresAt && !rotatedFrom && new Date(input.expiresAt).getTime() <= Date.now()) {
      throw badRequest('expiresAt must be in the future', { field: 'expiresAt', expiresAt: input.expiresAt });
    }
    const prefix = randomBytes(9).toString('base64url').replace(/[-_]/g, 'x').slice(0, 12);
    const secret = randomBytes(32).toString('base64url');
    const key = await this.keys.create({
      prefix,
      secretHash: sha256(secret),
      service: input.service,
      permissions: input.permissions,
      createdBy,
      expiresAt: input.expiresAt ? new Date(input.expiresAt) : null,
      rotatedFrom: rotatedFrom ?? null,
    });
    await this.audit.record({
      eventType: rotatedFrom ? 'api_key_rotated' : 'api_key_issued',
      userId: createdBy,
      ...origin,
      metadata: { apiKeyId: key.id, service: key.service, rotatedFrom },
    });
    return { ...describe(key), key: `ap_${prefix}_${secret}` };
  }

  async list(page: { limit: number; offset: number }) {
    const { keys, total } = await this.keys.page(page);
    return { apiKeys: keys.map(describe), total, ...page };
  }

  /** A new key with the same service and permissions; the old one stops working after the grace period. */
  async rotate(id: string, gracePeriodSeconds: number, actor: string, origin: AuditOrigin) {
    const old = await this.keys.findById(id);
    const oldEnd = old && endOf(old);
    if (!old || (oldEnd && oldEnd <= new Date())) throw notFound('No active API key with this id');
    const replacement = await this.issue(
      { service: old.service, permissions: old.permissions, expiresAt: old.expiresAt?.toISOString() },
      actor,
      origin,
      old.id,
    );
    const cutoff = new Date(Date.now() + gracePeriodSeconds * 1000);
    const end = gracePeriodSeconds === 0 ? { revokedAt: cutoff } : { expiresAt: old.expiresAt && old.expiresAt < cutoff ? old.expiresAt : cutoff };
    // Published before the row changes: should the write fail, the key's tokens are dead anyway.
    await this.revokeTokens(id, end.revokedAt ?? end.expiresAt!);
    await this.keys.setEnd(id, end);
    return replacement;
  }

  async revoke(id: string, actor: string, origin: AuditOrigin): Promise<void> {
    const key = await this.keys.findById(id);
    if (!key || key.revokedAt) throw notFound('No active API key with this id');
    await this.revokeTokens(id, new Date());
    if (!(await this.keys.revokeActive(id))) throw notFound('No active API key with this id');
    await this.audit.record({ eventType: 'api_key_revoked', userId: actor, ...origin, metadata: { apiKeyId: id } });
  }

  /** Every access token issued for the key stops being accepted at `from`, on every service. */
  private async revokeTokens(id: string, from: Date): Promise<void> {
    const fromSeconds = Math.floor(from.getTime() / 1000);
    await publishApiKeyRevocation(this.redis, id, fromSeconds, fromSeconds + this.tokenTtlSeconds);
  }

  /** Whether tokens issued for the key are still good: it exists, is not revoked and has not expired. */
  async isLive(id: string): Promise<boolean> {
    const key = await this.keys.findById(id);
    const end = key && endOf(key);
    return Boolean(key) && (end === null || end! > new Date());
  }

  /** The key's row when the presented key is genuine, active and unexpired. */
  async authenticate(presented: string): Promise<ApiKeyRow | undefined> {
    const match = KEY_FORMAT.exec(presented);
    if (!match) return undefined;
    const key = await this.keys.findByPrefix(match[1]!);
    if (!key || !equalHashes(key.secretHash, sha256(match[2]!))) return undefined;
    const now = new Date();
    if (key.revokedAt && key.revokedAt <= now) return undefined;
    if (key.expiresAt && key.expiresAt <= now) return undefined;
    await this.keys.markUsed(key.id, now);
    return key;
  }
}
