import { UpstreamError, type AuthClient } from '@platform/clients';
import { serviceUnavailable, unauthorized } from '@platform/http';
import { createHash } from 'node:crypto';

/** The cache key of an API key: its SHA-256, never the key itself. */
export const apiKeyHash = (apiKey: string): string => createHash('sha256').update(apiKey).digest('hex');

/** The answer to a key auth refuses, or one not shaped like a key at all (README: 401 `invalid_api_key`). */
export const invalidApiKey = () => unauthorized('The API key is not valid', { reason: 'invalid_api_key' }, 'invalid_api_key');

/**
 * API keys exchanged with auth (`POST /api/v1/auth/api-key`) for platform tokens, each cached by
 * the key's hash until shortly before the token expires. Concurrent requests with one key share
 * one exchange. A key auth refuses answers 401; auth unreachable answers 503 naming it.
 */
export class ApiKeyExchange {
  private readonly cache = new Map<string, { token: string; renewAt: number }>();
  private readonly pending = new Map<string, Promise<string>>();

  constructor(
    private readonly auth: AuthClient,
    private readonly options: { clientId: string; renewBeforeMs: number; maxEntries: number },
  ) {}

  async token(apiKey: string, hash = apiKeyHash(apiKey)): Promise<string> {
    const cached = this.cache.get(hash);
    if (cached && Date.now() < cached.renewAt) return cached.token;
    let exchange = this.pending.get(hash);
    if (!exchange) {
      exchange = this.exchange(apiKey, hash).finally(() => this.pending.delete(hash));
      this.pending.set(hash, exchange);
    }
    return exchange;
  }

  /** Forgets every cached token (a revoked key stops working at once). */
  clear(): void {
    this.cache.clear();
  }

  private async exchange(apiKey: string, hash: string): Promise<string> {
    try {
      const answer = await this.auth.exchangeApiKey(apiKey, this.options.clientId);
      this.cache.delete(hash);
      this.cache.set(hash, { token: answer.access_token, renewAt: Date.now() + Math.max(0, answer.expires_in * 1000 - this.options.renewBeforeMs) });
      if (this.cache.size > this.options.maxEntries) this.cache.delete(this.cache.keys().next().value as string);
      return answer.access_token;
    } catch (error) {
      this.cache.delete(hash);
      if (
        error instanceof UpstreamError &&
        error.upstreamStatus !== undefined &&
        error.upstreamStatus >= 400 &&
        error.upstreamStatus < 500 &&
        error.upstreamStatus !== 429
      ) {
        throw invalidApiKey();
      }
      throw serviceUnavailable('auth is unavailable: the API key could not be exchanged', {
        service: 'auth',
        reason: error instanceof UpstreamError ? error.reason : 'network',
      });
    }
  }
}
