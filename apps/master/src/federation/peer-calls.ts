import { master } from '@platform/contracts';
import { ApiError, badRequest, guardedFetch, type GuardOptions } from '@platform/http';
import { decodeCompactJws, hasPermission, StaticKeyResolver, TokenError, TokenVerifier } from '@platform/jwt';
import { createPublicKey, type KeyObject } from 'node:crypto';
import { z } from 'zod';

/** Every call to a peer goes through `guardedFetch`: a peer's URL is user-supplied. */
export class PeerCalls {
  constructor(private readonly guard: GuardOptions) {}

  /** The peer answers its health endpoint with 2xx. */
  async checkHealth(url: string): Promise<void> {
    const response = await guardedFetch(url, { headers: { accept: 'application/json' } }, this.guard);
    if (response.status < 200 || response.status >= 300) {
      throw new ApiError(502, 'api_error', 'upstream_error', `The peer's health check at ${new URL(url).host} answered ${response.status}`, {
        check: 'health',
        status: response.status,
      });
    }
  }

  /** The RSA signing keys the peer's auth service publishes, by `kid`. */
  async keys(url: string): Promise<Map<string, KeyObject>> {
    const response = await guardedFetch(url, { headers: { accept: 'application/json' } }, this.guard);
    const parsed =
      response.status === 200
        ? z.object({ keys: z.array(z.looseObject({ kid: z.string(), kty: z.string() })).max(100) }).safeParse(safeJson(response.text()))
        : undefined;
    if (!parsed?.success) {
      throw new ApiError(502, 'api_error', 'upstream_error', `The peer's JWKS at ${new URL(url).host} is unusable`, { check: 'jwks', status: response.status });
    }
    const keys = new Map<string, KeyObject>();
    for (const jwk of parsed.data.keys) {
      if (jwk.kty !== 'RSA') continue;
      try {
        keys.set(jwk.kid, createPublicKey({ key: jwk as never, format: 'jwk' }));
      } catch {
        // An unreadable key cannot have signed anything; skip it.
      }
    }
    return keys;
  }

  /**
   * Verifies the join token the peer's operator issued: RS256 with one of the peer's keys, its
   * issuer (the one given, or the token's own), our audience, not expired, granting agents:read
   * (it is the bearer that reads the peer's catalog).
   */
  async verifyJoinToken(token: string, keys: Map<string, KeyObject>, audience: string, issuer?: string) {
    try {
      const claimedIssuer = issuer ?? String(decodeCompactJws(token).payload.iss ?? '');
      const verifier = new TokenVerifier({ keys: new StaticKeyResolver(() => keys), issuer: claimedIssuer, audience });
      const claims = await verifier.verify(token);
      if (!hasPermission(claims.permissions, 'agents:read')) {
        throw badRequest('The join token does not grant agents:read on the peer', {
          issues: [{ path: 'body.token', code: 'join_token_permission', message: 'the token must grant agents:read' }],
        });
      }
      return claims;
    } catch (error) {
      if (error instanceof TokenError) {
        throw badRequest(`The join token is not valid for this peer: ${error.message}`, {
          issues: [{ path: 'body.token', code: `join_token_${error.reason}`, message: error.message }],
        });
      }
      throw error;
    }
  }

  /** One page of the peer's public catalog (its own agents, not those it mirrors). */
  async catalogPage(apiUrl: string, token: string, offset: number, limit: number): Promise<{ status: number; page?: master.AgentPage }> {
    const query = new URLSearchParams({ origin: 'local', visibility: 'public', limit: String(limit), offset: String(offset), sort: 'name' });
    const response = await guardedFetch(
      `${apiUrl.replace(/\/$/, '')}/agents?${query}`,
      { headers: { accept: 'application/json', authorization: `Bearer ${token}` } },
      this.guard,
    );
    if (response.status !== 200) return { status: response.status };
    const parsed = master.AgentPage.safeParse(safeJson(response.text()));
    if (!parsed.success) throw new ApiError(502, 'api_error', 'upstream_error', "The peer's catalog is not a page of agents", { check: 'catalog' });
    return { status: 200, page: parsed.data };
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
