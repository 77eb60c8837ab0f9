import type { KeyObject } from 'node:crypto';
import { JwksClient } from 'jwks-rsa';
import { createPublicKey } from 'node:crypto';

/** Finds the public key for a `kid`, or undefined when no such key is published. */
export interface KeyResolver {
  get(kid: string): Promise<KeyObject | undefined>;
  /** The key when it is at hand without I/O: lets verification skip a promise on the hot path. */
  cached?(kid: string): KeyObject | undefined;
}

export interface JwksKeyResolverOptions {
  jwksUri: string;
  /** How long a fetched key set is fresh; it is refreshed in the background before then. */
  cacheMaxAgeMs?: number;
  /** At most this many refetches a minute caused by unknown `kid`s (their own budget). */
  requestsPerMinute?: number;
  timeoutMs?: number;
}

/**
 * The auth service's key set, fetched whole through jwks-rsa and each key parsed once into a
 * KeyObject (re-parsing a PEM per token costs several times the throughput).
 *
 * Unknown `kid`s never starve known ones: the last good set is kept for as long as refreshes fail,
 * a known key never waits on a fetch (a set past 80% of its age is refreshed in the background),
 * and refetches for unknown `kid`s spend a budget of their own; past it, an unknown `kid` is simply
 * unknown until the next refresh.
 */
export class JwksKeyResolver implements KeyResolver {
  private readonly client: JwksClient;
  private readonly maxAgeMs: number;
  private readonly unknownPerMinute: number;
  private keys = new Map<string, KeyObject>();
  private fetchedAt = 0;
  private refreshing?: Promise<void>;
  private unknownWindow = { start: 0, used: 0 };

  constructor(options: JwksKeyResolverOptions) {
    this.maxAgeMs = options.cacheMaxAgeMs ?? 10 * 60_000;
    this.unknownPerMinute = options.requestsPerMinute ?? 10;
    this.client = new JwksClient({ jwksUri: options.jwksUri, cache: false, rateLimit: false, timeout: options.timeoutMs ?? 5000 });
  }

  cached(kid: string): KeyObject | undefined {
    const key = this.keys.get(kid);
    if (key && Date.now() - this.fetchedAt > this.maxAgeMs * 0.8) this.refreshInBackground();
    return key;
  }

  async get(kid: string): Promise<KeyObject | undefined> {
    const known = this.cached(kid);
    if (known) return known;
    // Nothing fetched yet: the first fetch decides, and its failure is the caller's to report.
    if (this.fetchedAt === 0) {
      await this.refresh();
      return this.keys.get(kid);
    }
    if (!this.spendUnknownBudget()) return undefined;
    await this.refresh().catch(() => undefined);
    return this.keys.get(kid);
  }

  /** One fetch at a time; a failed fetch keeps the last good set. */
  private refresh(): Promise<void> {
    return (this.refreshing ??= this.client
      .getSigningKeys()
      .then((signingKeys) => {
        this.keys = new Map(signingKeys.filter((key) => key.kid).map((key) => [key.kid, createPublicKey(key.getPublicKey())]));
        this.fetchedAt = Date.now();
      })
      .finally(() => {
        this.refreshing = undefined;
      }));
  }

  private refreshInBackground(): void {
    if (!this.refreshing) this.refresh().catch(() => undefined);
  }

  private spendUnknownBudget(): boolean {
    const now = Date.now();
    if (now - this.unknownWindow.start >= 60_000) this.unknownWindow = { start: now, used: 0 };
    if (this.unknownWindow.used >= this.unknownPerMinute) return false;
    this.unknownWindow.used++;
    return true;
  }
}

/** Keys held in memory: the auth service verifies its own tokens without a network hop. */
export class StaticKeyResolver implements KeyResolver {
  constructor(private readonly keys: () => ReadonlyMap<string, KeyObject>) {}

  cached(kid: string): KeyObject | undefined {
    return this.keys().get(kid);
  }

  async get(kid: string): Promise<KeyObject | undefined> {
    return this.cached(kid);
  }
}
