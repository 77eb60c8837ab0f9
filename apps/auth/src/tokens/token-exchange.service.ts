import { auth, type AccessTokenClaims, type ActorClaim } from '@platform/contracts';
import { ApiError } from '@platform/http';
import { hasPermission, isRevokedInRedis, PermissionError, TokenError, type TokenVerifier } from '@platform/jwt';
import type { Redis } from 'ioredis';
import type { ApiKeys } from '../api-keys/api-keys.service';
import type { AuditLog, AuditOrigin } from '../audit/audit.service';
import type { AccessTokenIssuer } from './access-tokens';

/** The permission a caller needs to act for someone else. */
export const EXCHANGE_PERMISSION = 'tokens:exchange';
/** Actors nested in one token at most: a chain of services acting for a user stays short. */
const MAX_ACTOR_DEPTH = 5;

/** RFC 8693 / RFC 6749 errors, all 400, in the platform's error shape. */
const oauth = (code: 'invalid_grant' | 'invalid_scope' | 'unsupported_grant_type' | 'invalid_request' | 'invalid_target', message: string, details?: unknown) =>
  new ApiError(400, code === 'invalid_grant' ? 'authentication_error' : 'validation_error', code, message, details);

export type TokenExchangeInput = {
  grant_type: string;
  subject_token: string;
  subject_token_type: string;
  scope?: string;
  audience?: string;
  actor_token?: string;
  actor_token_type?: string;
  requested_token_type?: string;
};

const depth = (act: ActorClaim | undefined): number => (act ? 1 + depth(act.act) : 0);

/**
 * OAuth 2.0 Token Exchange (RFC 8693), delegation only: a service holding `tokens:exchange` (the
 * actor) trades a user's access token (the subject) for a token that is the user's, with the
 * service named in `act`. The new token has the subject's identity and at most its permissions,
 * and never outlives the subject token, so a service acting for a user reaches no further than the
 * user could.
 */
export class TokenExchange {
  constructor(
    private readonly verifier: TokenVerifier,
    private readonly accessTokens: AccessTokenIssuer,
    private readonly apiKeys: ApiKeys,
    private readonly redis: Redis,
    private readonly audit: AuditLog,
  ) {}

  async exchange(input: TokenExchangeInput, bearer: string | undefined, origin: AuditOrigin) {
    if (input.grant_type !== auth.TOKEN_EXCHANGE_GRANT) {
      throw oauth('unsupported_grant_type', `Only the grant type ${auth.TOKEN_EXCHANGE_GRANT} is served here`);
    }
    const actor = await this.actor(input, bearer);
    if (input.subject_token_type !== auth.ACCESS_TOKEN_TYPE) {
      throw oauth('invalid_request', `subject_token_type must be ${auth.ACCESS_TOKEN_TYPE}`);
    }
    if (input.requested_token_type !== undefined && input.requested_token_type !== auth.ACCESS_TOKEN_TYPE) {
      throw oauth('invalid_request', `Only ${auth.ACCESS_TOKEN_TYPE} tokens are issued`);
    }
    const subject = await this.subject(input.subject_token);
    if (depth(subject.act) >= MAX_ACTOR_DEPTH) throw oauth('invalid_grant', `A token may carry at most ${MAX_ACTOR_DEPTH} actors`);
    const permissions = this.narrow(subject, input.scope);
    const audience = this.audience(input.audience);

    const act: ActorClaim = { sub: actor.sub, client_id: actor.client_id, ...(subject.act && { act: subject.act }) };
    const issued = this.accessTokens.issue({
      sub: subject.sub,
      roles: [...subject.roles],
      permissions,
      ...(subject.user && { user: { id: subject.user.id, email: subject.user.email ?? null, name: subject.user.name ?? null } }),
      scope: subject.scope,
      clientId: actor.client_id,
      // A subject issued for an API key dies with the key: so does the token acting for it.
      ...(subject.api_key_id && { apiKey: { id: subject.api_key_id, endsAt: null } }),
      teams: subject.teams ? [...subject.teams] : undefined,
      act,
      notAfter: subject.exp,
      audience,
    });
    await this.audit.record({
      eventType: 'token_exchanged',
      userId: subject.sub,
      clientId: actor.client_id,
      ...origin,
      metadata: {
        actor: actor.sub,
        jti: issued.jti,
        subjectJti: subject.jti,
        ...(input.scope !== undefined && { permissions }),
        ...(audience && { audience }),
      },
    });
    return {
      access_token: issued.token,
      issued_token_type: auth.ACCESS_TOKEN_TYPE,
      token_type: 'Bearer' as const,
      expires_in: issued.expiresIn,
      ...(input.scope !== undefined && { scope: permissions.join(' ') }),
    };
  }

  /** The caller acting for the subject: `actor_token` when sent, else the request's bearer; it must hold tokens:exchange. */
  private async actor(input: TokenExchangeInput, bearer: string | undefined): Promise<AccessTokenClaims> {
    if (input.actor_token !== undefined && input.actor_token_type !== auth.ACCESS_TOKEN_TYPE) {
      throw oauth('invalid_request', `actor_token_type must be ${auth.ACCESS_TOKEN_TYPE}`);
    }
    if (input.actor_token === undefined && input.actor_token_type !== undefined) throw oauth('invalid_request', 'actor_token_type needs an actor_token');
    if (input.actor_token !== undefined && bearer !== undefined && bearer !== input.actor_token) {
      throw oauth('invalid_request', 'Send the actor either as the bearer token or as actor_token, not two different ones');
    }
    const token = input.actor_token ?? bearer;
    if (!token) throw new TokenError('token_missing', 'The actor authenticates with an Authorization: Bearer token (or actor_token)');
    const actor = await this.verifier.verify(token);
    if (await this.isDead(actor)) throw new TokenError('token_revoked', 'The token has been revoked');
    if (!hasPermission(actor.permissions, EXCHANGE_PERMISSION)) throw new PermissionError(EXCHANGE_PERMISSION, actor.permissions);
    return actor;
  }

  /** The subject token, verified as every platform token is, and checked against Redis itself (a revocation a moment ago counts). */
  private async subject(token: string): Promise<AccessTokenClaims> {
    let claims: AccessTokenClaims;
    try {
      claims = await this.verifier.verify(token);
    } catch (error) {
      if (error instanceof TokenError) throw oauth('invalid_grant', `The subject token is not valid: ${error.message}`);
      throw error;
    }
    if (claims.exp <= Math.floor(Date.now() / 1000)) throw oauth('invalid_grant', 'The subject token is not valid: The token has expired');
    if (await this.isDead(claims)) throw oauth('invalid_grant', 'The subject token is not valid: The token has been revoked');
    return claims;
  }

  /** Revoked in Redis (authoritative, unlike the verifier's in-memory copy), or its API key is gone. */
  private async isDead(claims: AccessTokenClaims): Promise<boolean> {
    if (await isRevokedInRedis(this.redis, claims.jti)) return true;
    return claims.api_key_id !== undefined && !(await this.apiKeys.isLive(claims.api_key_id));
  }

  /** The requested permissions, each granted by the subject's; all of the subject's when none are asked for. */
  private narrow(subject: AccessTokenClaims, scope: string | undefined): string[] {
    if (scope === undefined) return [...subject.permissions];
    const requested = [...new Set(scope.split(/\s+/).filter(Boolean))];
    if (requested.length === 0) throw oauth('invalid_scope', 'The scope names no permission');
    const refused = requested.filter((permission) => !hasPermission(subject.permissions, permission));
    if (refused.length > 0) {
      throw oauth('invalid_scope', `The subject does not hold ${refused.join(', ')}`, { refused });
    }
    return requested;
  }

  /** One of the audiences tokens are issued for, or undefined for all of them. */
  private audience(requested: string | undefined): string[] | undefined {
    if (requested === undefined) return undefined;
    if (!this.accessTokens.audience.includes(requested)) {
      throw oauth('invalid_target', `Tokens are issued for ${this.accessTokens.audience.join(', ')}, not ${requested}`);
    }
    return [requested];
  }
}
