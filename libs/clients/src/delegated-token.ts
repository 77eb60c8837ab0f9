import { auth } from '@platform/contracts';
import { createHash } from 'node:crypto';
import { ServiceClient, type TokenSource } from './service-client';

export interface TokenExchangeOptions {
  authUrl: string;
  /** The service's own token (its API key's, `serviceApiKeyToken`): the actor, which needs `tokens:exchange`. */
  serviceToken: TokenSource;
  /** Renew this long before a delegated token expires (default 60 s; at most half its life). */
  renewBeforeMs?: number;
  timeoutMs?: number;
  /** Delegated tokens kept at once (default 10,000); the least recently used go first. */
  maxEntries?: number;
  /** The clock, for tests. */
  now?: () => number;
}

/** What a delegated token may be narrowed to. */
export interface Delegation {
  /** Permissions, each held by the user: the delegated token carries only these. */
  scope?: string[];
  audience?: string;
}

interface Cached {
  token: string;
  renewAt: number;
}

/**
 * Exchanges users' access tokens for delegated ones (RFC 8693 at auth's `/api/v1/auth/token`):
 * tokens that are the user's, with the service named in `act`, so what a service does for a user
 * is the user's and reaches no further than the user may. Each is cached by the SHA-256 of the
 * user's token (never the token itself) until shortly before it expires; concurrent callers for
 * one user share one exchange.
 */
export class TokenExchanger {
  private readonly client: ServiceClient;
  private readonly cache = new Map<string, Cached>();
  private readonly pending = new Map<string, Promise<string>>();
  private readonly now: () => number;

  constructor(private readonly options: TokenExchangeOptions) {
    this.client = new ServiceClient({ service: 'auth', baseUrl: options.authUrl, timeoutMs: options.timeoutMs ?? 5000, token: options.serviceToken });
    this.now = options.now ?? Date.now;
  }

  /** A delegated token for the holder of `subjectToken`. */
  async exchange(subjectToken: string, delegation: Delegation = {}): Promise<string> {
    const key = [createHash('sha256').update(subjectToken).digest('base64url'), delegation.scope?.join(' ') ?? '', delegation.audience ?? ''].join('|');
    const cached = this.cache.get(key);
    if (cached) this.cache.delete(key);
    if (cached && this.now() < cached.renewAt) {
      this.cache.set(key, cached); // most recently used last
      return cached.token;
    }
    let pending = this.pending.get(key);
    if (!pending) {
      pending = this.request(subjectToken, delegation)
        .then((answer) => {
          this.remember(key, answer);
          return answer.access_token;
        })
        .finally(() => this.pending.delete(key));
      this.pending.set(key, pending);
    }
    return pending;
  }

  /** Forgets every delegated token (after the service's own key changed, for instance). */
  clear(): void {
    this.cache.clear();
  }

  private request(subjectToken: string, delegation: Delegation) {
    return this.client.request('POST', '/api/v1/auth/token', {
      body: {
        grant_type: auth.TOKEN_EXCHANGE_GRANT,
        subject_token: subjectToken,
        subject_token_type: auth.ACCESS_TOKEN_TYPE,
        ...(delegation.scope && { scope: delegation.scope.join(' ') }),
        ...(delegation.audience && { audience: delegation.audience }),
      },
      schema: auth.TokenExchangeResponse,
      // Repeating an exchange only issues another token for the same user.
      idempotent: true,
    });
  }

  private remember(key: string, answer: { access_token: string; expires_in: number }): void {
    const lifeMs = answer.expires_in * 1000;
    const margin = Math.min(this.options.renewBeforeMs ?? 60_000, lifeMs / 2);
    this.cache.set(key, { token: answer.access_token, renewAt: this.now() + lifeMs - margin });
    const max = this.options.maxEntries ?? 10_000;
    for (const oldest of this.cache.keys()) {
      if (this.cache.size <= max) break;
      this.cache.delete(oldest);
    }
  }
}

/**
 * The token source of a call made for a user: a delegated token for the holder of `subjectToken`
 * (the user's bearer token), from the service's exchanger and its cache.
 */
export function delegatedToken(exchanger: TokenExchanger, subjectToken: string, delegation?: Delegation): TokenSource {
  return () => exchanger.exchange(subjectToken, delegation);
}
