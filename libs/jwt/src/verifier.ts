import { AccessTokenClaims } from '@platform/contracts';
import { hash, type KeyObject } from 'node:crypto';
import { decodeCompactJws, verifyRs256, type DecodedJws } from './compact-jws';
import type { KeyResolver } from './key-resolver';
import { apiKeyRevocationName, type RevocationCheck } from './revocation';
import { TokenError } from './token-error';

export interface TokenVerifierOptions {
  keys: KeyResolver;
  issuer: string;
  audience: string;
  revocations?: RevocationCheck;
  clockToleranceSeconds?: number;
  now?: () => number;
  /** How many verified tokens are remembered (0: none); see TokenVerifier.verify. */
  cacheSize?: number;
}

/** A token whose signature and claims were verified once, and with which key. */
interface VerifiedToken {
  claims: AccessTokenClaims;
  kid: string;
  key: KeyObject;
}

/**
 * Verifies platform access tokens: RS256 only, key by `kid`, then `exp`, `nbf`, `iss`, `aud`, the
 * claim shape and revocation. Every failure is a TokenError with a stable reason.
 */
export class TokenVerifier {
  private readonly tolerance: number;
  private readonly now: () => number;
  private readonly cacheSize: number;
  /** Verified tokens by the SHA-256 of their text, least recently used first. */
  private readonly verified = new Map<string, VerifiedToken>();

  constructor(private readonly options: TokenVerifierOptions) {
    this.tolerance = options.clockToleranceSeconds ?? 5;
    this.now = options.now ?? (() => Date.now() / 1000);
    this.cacheSize = options.cacheSize ?? 10_000;
  }

  /** Whether a token already verified has been revoked since (long-lived connections ask this). */
  isRevoked(claims: Pick<AccessTokenClaims, 'jti' | 'api_key_id'>): boolean {
    const revocations = this.options.revocations;
    if (!revocations) return false;
    // A token exchanged for an API key dies with the key (revoked, or rotated past its grace).
    return revocations.isRevoked(claims.jti) || (claims.api_key_id !== undefined && revocations.isRevoked(apiKeyRevocationName(claims.api_key_id)));
  }

  /**
   * Resolves with the claims, or rejects with a TokenError.
   *
   * A token is presented many times over its life, so a verified one is remembered (a bounded LRU
   * keyed by the SHA-256 of its text, never the token itself): later calls skip the RS256 check and
   * the claims parsing, but still refuse it once expired, revoked, or when its signing key is no
   * longer one the resolver holds.
   */
  verify(token: string): Promise<AccessTokenClaims> {
    try {
      const id = this.cacheSize > 0 ? hash('sha256', token, 'base64url') : undefined;
      const remembered = id === undefined ? undefined : this.verified.get(id);
      if (remembered && this.options.keys.cached?.(remembered.kid) === remembered.key) {
        this.verified.delete(id!);
        this.verified.set(id!, remembered);
        return Promise.resolve(this.checkStillValid(remembered.claims));
      }
      if (remembered) this.verified.delete(id!);
      const decoded = decodeCompactJws(token);
      const kid = this.checkHeader(decoded);
      // Hot path: a key already at hand is used without awaiting anything.
      const key = this.options.keys.cached?.(kid);
      if (key) return Promise.resolve(this.remember(id, kid, key, this.checkSignatureAndClaims(decoded, key)));
      return this.verifyWithFetchedKey(decoded, kid).then(({ claims, key: fetched }) => this.remember(id, kid, fetched, claims));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  private remember(id: string | undefined, kid: string, key: KeyObject, claims: AccessTokenClaims): AccessTokenClaims {
    if (id === undefined) return claims;
    Object.freeze(claims.roles);
    Object.freeze(claims.permissions);
    if (claims.user) Object.freeze(claims.user);
    if (claims.teams) Object.freeze(claims.teams);
    Object.freeze(claims);
    if (this.verified.size >= this.cacheSize) this.verified.delete(this.verified.keys().next().value as string);
    this.verified.set(id, { claims, kid, key });
    return claims;
  }

  /** The checks that can change after a token was verified: expiry and revocation. */
  private checkStillValid(claims: AccessTokenClaims): AccessTokenClaims {
    if (this.now() >= claims.exp + this.tolerance) {
      throw new TokenError('token_expired', 'The token has expired', new Date(claims.exp * 1000));
    }
    if (this.isRevoked(claims)) throw new TokenError('token_revoked', 'The token has been revoked');
    return claims;
  }

  private checkHeader(decoded: DecodedJws): string {
    if (decoded.header.alg !== 'RS256') {
      throw new TokenError('unsupported_algorithm', 'Only RS256 tokens are accepted');
    }
    if (typeof decoded.header.kid !== 'string' || decoded.header.kid === '') {
      throw new TokenError('unknown_key', 'The token names no signing key');
    }
    return decoded.header.kid;
  }

  private async verifyWithFetchedKey(decoded: DecodedJws, kid: string): Promise<{ claims: AccessTokenClaims; key: KeyObject }> {
    let key: KeyObject | undefined;
    try {
      key = await this.options.keys.get(kid);
    } catch {
      throw new TokenError('jwks_unavailable', 'The signing keys could not be fetched');
    }
    if (!key) throw new TokenError('unknown_key', 'The token was signed by an unknown key');
    return { claims: this.checkSignatureAndClaims(decoded, key), key };
  }

  private checkSignatureAndClaims(decoded: DecodedJws, key: KeyObject): AccessTokenClaims {
    if (!verifyRs256(decoded, key)) throw new TokenError('invalid_signature', 'The token signature is invalid');
    return this.checkClaims(decoded.payload);
  }

  private checkClaims(payload: Record<string, unknown>): AccessTokenClaims {
    const now = this.now();
    const { exp, nbf } = payload;
    if (typeof exp !== 'number') throw new TokenError('invalid_claims', 'The token has no expiry');
    if (now >= exp + this.tolerance) {
      throw new TokenError('token_expired', 'The token has expired', new Date(exp * 1000));
    }
    if (typeof nbf === 'number' && nbf > now + this.tolerance) {
      throw new TokenError('token_not_yet_valid', 'The token is not valid yet');
    }
    if (payload.iss !== this.options.issuer) throw new TokenError('invalid_issuer', 'The token was issued by someone else');
    const aud = typeof payload.aud === 'string' ? [payload.aud] : payload.aud;
    if (!Array.isArray(aud) || !aud.includes(this.options.audience)) {
      throw new TokenError('invalid_audience', 'The token is not meant for this service');
    }
    const parsed = AccessTokenClaims.safeParse(aud === payload.aud ? payload : { ...payload, aud });
    if (!parsed.success) throw new TokenError('invalid_claims', 'The token claims are incomplete');
    if (this.isRevoked(parsed.data)) {
      throw new TokenError('token_revoked', 'The token has been revoked');
    }
    return parsed.data;
  }
}
