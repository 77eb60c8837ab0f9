import type { auth } from '@platform/contracts';
import { ConfigError } from '@platform/config';
import { conflict } from '@platform/http';
import type { Redis } from 'ioredis';
import { createHash, createPrivateKey, createPublicKey, generateKeyPair, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import type { z } from 'zod';
import type { SecretBox } from '../crypto/secret-box';
import type { SigningKeysRepository, SigningKeysUnit } from './signing-keys.repository';

type Jwk = z.infer<typeof auth.Jwk>;

const generateRsa = promisify(generateKeyPair);
export const MAX_PUBLISHED_KEYS = 5;
const KEYS_CHANGED_CHANNEL = 'auth:signing-keys-changed';

interface LoadedKey {
  kid: string;
  jwk: Jwk;
  publicKey: KeyObject;
  privateKey: KeyObject;
  publishedAt: Date;
  activatesAt: Date;
  retiredAt: Date | null;
  expiresAt: Date | null;
}

export interface KeyRingOptions {
  accessTokenTtlSeconds: number;
  prepublishSeconds: number;
  rotationIntervalSeconds: number;
}

/** RFC 7638 thumbprint: a `kid` that names the key material itself. */
function thumbprint(jwk: { e: string; kty: string; n: string }): string {
  return createHash('sha256')
    .update(JSON.stringify({ e: jwk.e, kty: jwk.kty, n: jwk.n }))
    .digest('base64url');
}

/**
 * The RS256 signing keys. Each key is parsed once into KeyObjects when loaded. A new key is
 * published in the JWKS `prepublishSeconds` before it signs anything, so cached verifiers see it
 * first; the key it replaces stays published until every token it signed has expired.
 */
export class KeyRing {
  private keys: LoadedKey[] = [];
  private subscriber?: Redis;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly store: SigningKeysRepository,
    private readonly box: SecretBox,
    private readonly redis: Redis,
    private readonly options: KeyRingOptions,
  ) {}

  /** Loads the keys, creates the first one on a fresh database, and follows other replicas' rotations. */
  async start(): Promise<void> {
    // Load first: a wrong AUTH_ENCRYPTION_KEY must stop start-up before anything is written.
    await this.load();
    if (!this.hasActiveKey()) {
      await this.store.withRotationLock(async (tx) => {
        const now = new Date();
        const active = await tx.countActive(now);
        if (active === 0) await this.insertKey(tx, now);
      });
      await this.load();
    }
    this.subscriber = this.redis.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null }); // subscribers wait for their connection
    this.subscriber.on('message', () => void this.load().catch(() => undefined));
    this.subscriber.on('error', () => undefined);
    await this.subscriber.subscribe(KEYS_CHANGED_CHANNEL);
    this.timer = setInterval(() => void this.load().catch(() => undefined), 60_000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.subscriber?.disconnect();
  }

  async load(): Promise<void> {
    const rows = await this.store.live(new Date());
    const known = new Map(this.keys.map((key) => [key.kid, key]));
    this.keys = rows.map((row) => {
      const cached = known.get(row.kid);
      const base = cached ?? {
        kid: row.kid,
        jwk: row.publicJwk as Jwk,
        publicKey: createPublicKey({ key: row.publicJwk as object, format: 'jwk' } as Parameters<typeof createPublicKey>[0]),
        privateKey: createPrivateKey(this.openPrivateKey(row.kid, row.privateKeyEncrypted)),
      };
      return { ...base, publishedAt: row.publishedAt, activatesAt: row.activatesAt, retiredAt: row.retiredAt, expiresAt: row.expiresAt };
    });
  }

  private openPrivateKey(kid: string, sealed: string): string {
    try {
      return this.box.open(sealed);
    } catch {
      throw new ConfigError(`AUTH_ENCRYPTION_KEY does not open the stored signing key ${kid}: it differs from the key the signing keys were sealed with`);
    }
  }

  private hasActiveKey(now = new Date()): boolean {
    return this.keys.some((key) => key.activatesAt <= now && (!key.retiredAt || key.retiredAt > now));
  }

  /** The newest key whose activation time has come. */
  signingKey(now = new Date()): { kid: string; privateKey: KeyObject } {
    const active = this.keys.filter((key) => key.activatesAt <= now);
    const key = active[active.length - 1];
    if (!key) throw new Error('No signing key is active');
    return key;
  }

  /** Public keys that verify tokens now: everything published and not expired. */
  publicKeys(now = new Date()): ReadonlyMap<string, KeyObject> {
    return new Map(this.published(now).map((key) => [key.kid, key.publicKey]));
  }

  jwks(now = new Date()): Jwk[] {
    return this.published(now).map((key) => key.jwk);
  }

  describe(now = new Date()) {
    const current = this.signingKey(now).kid;
    return this.keys.map((key) => ({
      kid: key.kid,
      state: key.kid === current ? ('active' as const) : key.activatesAt > now ? ('pending' as const) : ('retired' as const),
      publishedAt: key.publishedAt.toISOString(),
      activatesAt: key.activatesAt.toISOString(),
      retiredAt: key.retiredAt?.toISOString() ?? null,
      expiresAt: key.expiresAt?.toISOString() ?? null,
    }));
  }

  /**
   * Publishes a new key that starts signing after the pre-publication delay and schedules the
   * current one to leave the JWKS once its last token has expired. Refused while another key is
   * still pending, or when the JWKS would hold more than five keys.
   */
  async rotate(now = new Date()): Promise<{ kid: string; activatesAt: Date }> {
    const created = await this.store.withRotationLock(async (tx) => {
      const live = await tx.live(now);
      if (live.some((key) => key.activatesAt > now)) throw conflict('A new signing key is already waiting to activate');
      if (live.length >= MAX_PUBLISHED_KEYS) throw conflict('The JWKS already holds five keys; wait for a retired key to expire');
      const activatesAt = new Date(now.getTime() + this.options.prepublishSeconds * 1000);
      const expiresAt = new Date(activatesAt.getTime() + (this.options.accessTokenTtlSeconds + 60) * 1000);
      await tx.retireActive(now, activatesAt, expiresAt);
      return this.insertKey(tx, activatesAt);
    });
    await this.redis.publish(KEYS_CHANGED_CHANNEL, created.kid).catch(() => undefined);
    await this.load();
    return created;
  }

  /** The scheduled rotation: rotates when the active key is older than the rotation interval. */
  async rotateIfDue(now = new Date()): Promise<{ kid: string; activatesAt: Date } | undefined> {
    const current = this.keys.filter((key) => key.activatesAt <= now).pop();
    const pending = this.keys.some((key) => key.activatesAt > now);
    if (pending || !current) return undefined;
    if (now.getTime() - current.activatesAt.getTime() < this.options.rotationIntervalSeconds * 1000) return undefined;
    try {
      return await this.rotate(now);
    } catch (error) {
      if ((error as { status?: number }).status === 409) return undefined; // another replica did it
      throw error;
    }
  }

  private async insertKey(tx: SigningKeysUnit, activatesAt: Date) {
    const { publicKey, privateKey } = await generateRsa('rsa', { modulusLength: 2048 });
    const exported = publicKey.export({ format: 'jwk' }) as { n: string; e: string };
    const kid = thumbprint({ kty: 'RSA', n: exported.n, e: exported.e });
    const jwk: Jwk = { kty: 'RSA', kid, use: 'sig', alg: 'RS256', n: exported.n, e: exported.e };
    const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    await tx.insert({ kid, publicJwk: jwk, privateKeyEncrypted: this.box.seal(pem), activatesAt });
    return { kid, activatesAt };
  }

  private published(now: Date): LoadedKey[] {
    return this.keys.filter((key) => key.publishedAt <= now && (!key.expiresAt || key.expiresAt > now));
  }
}
