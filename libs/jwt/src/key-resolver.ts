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
  /** How long a parsed key is trusted before it is looked up again. */
  cacheMaxAgeMs?: number;
  /** At most this many JWKS fetches a minute when unknown `kid`s arrive. */
  requestsPerMinute?: number;
  timeoutMs?: number;
}

/**
 * JWKS from the auth service through jwks-rsa (cached, refetched on an unknown `kid`, rate-limited),
 * with each key parsed once into a KeyObject: re-parsing a PEM per token costs several times the
 * throughput.
 */
export class JwksKeyResolver implements KeyResolver {
  private readonly client: JwksClient;
  private readonly parsed = new Map<string, { key: KeyObject; until: number }>();
  private readonly maxAgeMs: number;

  constructor(options: JwksKeyResolverOptions) {
    this.maxAgeMs = options.cacheMaxAgeMs ?? 10 * 60_000;
    this.client = new JwksClient({
      jwksUri: options.jwksUri,
      cache: true,
      cacheMaxAge: this.maxAgeMs,
      rateLimit: true,
      jwksRequestsPerMinute: options.requestsPerMinute ?? 10,
      timeout: options.timeoutMs ?? 5000,
    });
  }

  cached(kid: string): KeyObject | undefined {
    const cached = this.parsed.get(kid);
    return cached && cached.until > Date.now() ? cached.key : undefined;
  }

  async get(kid: string): Promise<KeyObject | undefined> {
    const cached = this.cached(kid);
    if (cached) return cached;
    try {
      const signingKey = await this.client.getSigningKey(kid);
      const key = createPublicKey(signingKey.getPublicKey());
      this.parsed.set(kid, { key, until: Date.now() + this.maxAgeMs });
      return key;
    } catch (error) {
      if ((error as { name?: string }).name === 'SigningKeyNotFoundError') {
        this.parsed.delete(kid);
        return undefined;
      }
      throw error;
    }
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
