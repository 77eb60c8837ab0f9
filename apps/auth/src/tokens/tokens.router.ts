import { auth } from '@platform/contracts';
import { bearerToken, REVOKED_TOKENS_KEY, TokenError, type TokenVerifier } from '@platform/jwt';
import { ApiRouter, enforceRateLimit, type RateLimiter } from '@platform/http';
import express, { type RequestHandler } from 'express';
import { originOf } from '../audit/audit.service';
import type { ApiKeys } from '../api-keys/api-keys.service';
import type { Login } from '../login/login.service';
import type { RefreshTokens } from './tokens.service';
import type { Revocation } from './revocation';
import type { TokenExchange } from './token-exchange.service';

export interface TokenRateLimits {
  login: RequestHandler;
  apiKeyLogin: RequestHandler;
  refresh: RequestHandler;
  /** Taken in the handler, in the same round trip to Redis as the revocation check. */
  validate: RateLimiter;
}

export interface TokensRouterDeps {
  verifier: TokenVerifier;
  login: Login;
  refreshTokens: RefreshTokens;
  apiKeys: ApiKeys;
  revocation: Revocation;
  tokenExchange: TokenExchange;
  limits: TokenRateLimits;
}

/** RFC 8693 requests are form-encoded; JSON bodies are parsed by the app already. */
const formBody = express.urlencoded({ extended: false, limit: '32kb', parameterLimit: 20 });

/** Spec 1's token endpoints: login, API-key login, refresh, revoke, validate. */
export function tokensRouter({ verifier, login, refreshTokens, apiKeys, revocation, tokenExchange, limits }: TokensRouterDeps): ApiRouter {
  return new ApiRouter(verifier)
    .route({
      method: 'post',
      path: '/login',
      summary: 'Log in with a username and password',
      tags: ['tokens'],
      access: 'public',
      before: [limits.login],
      body: auth.LoginRequest,
      responses: {
        200: { description: 'Tokens', schema: auth.TokenResponse },
        401: { description: 'Invalid credentials' },
        429: { description: 'Rate limited or account locked' },
      },
      handler: (req) => login.withPassword(req.valid.body, originOf(req)),
    })
    .route({
      method: 'post',
      path: '/api-key',
      summary: 'Exchange a service API key for an access token',
      tags: ['tokens'],
      access: 'public',
      before: [limits.apiKeyLogin],
      body: auth.ApiKeyLoginRequest,
      responses: { 200: { description: 'An access token', schema: auth.ApiKeyLoginResponse }, 401: { description: 'Invalid API key' } },
      handler: (req) => login.withApiKey(req.valid.body, originOf(req)),
    })
    .route({
      method: 'post',
      path: '/refresh',
      summary: 'Rotate a refresh token into new tokens',
      tags: ['tokens'],
      access: 'public',
      before: [limits.refresh],
      body: auth.RefreshRequest,
      responses: {
        200: { description: 'New tokens', schema: auth.RefreshResponse },
        401: { description: 'invalid_grant: unknown, expired, revoked or reused' },
      },
      handler: async (req) => {
        const tokens = await refreshTokens.rotate(req.valid.body.refresh_token, originOf(req));
        return { access_token: tokens.accessToken, refresh_token: tokens.refreshToken, token_type: 'Bearer' as const, expires_in: tokens.expiresIn };
      },
    })
    .route({
      method: 'post',
      path: '/token',
      summary: 'Token exchange (RFC 8693): a token for a user, acted on by the calling service',
      description:
        "Form-encoded or JSON. The actor (the bearer token, or actor_token) needs tokens:exchange; the issued token is the subject's " +
        '(sub, user, roles, teams, its permissions or the narrowed scope), names the actor in act, and expires no later than the subject token.',
      tags: ['tokens'],
      // The actor is authenticated by the exchange itself: it may come as actor_token instead of the bearer.
      access: 'public',
      before: [formBody],
      body: auth.TokenExchangeRequest,
      responses: {
        200: { description: 'The delegated access token', schema: auth.TokenExchangeResponse },
        400: { description: 'invalid_request, invalid_grant (subject token invalid, expired or revoked), invalid_scope, unsupported_grant_type' },
        401: { description: 'No valid actor token' },
        403: { description: 'The actor lacks tokens:exchange' },
      },
      handler: (req) => tokenExchange.exchange(req.valid.body, bearerToken(req), originOf(req)),
    })
    .route({
      method: 'post',
      path: '/revoke',
      summary: 'Revoke an access or refresh token (RFC 7009)',
      tags: ['tokens'],
      access: 'authenticated',
      body: auth.RevokeRequest,
      responses: { 200: { description: 'Revoked (also for an unknown token)', schema: auth.RevokeResponse } },
      handler: (req) => revocation.revoke(req.valid.body.token, req.valid.body.token_type_hint, req.auth!, originOf(req)),
    })
    .route({
      method: 'post',
      path: '/validate',
      summary: 'Validate an access token',
      tags: ['tokens'],
      access: 'public',
      body: auth.ValidateRequest,
      responses: {
        200: { description: 'Whether the token is valid, with its payload or the reason', schema: auth.ValidateResponse },
        429: { description: 'Rate limited' },
      },
      handler: async (req, res) => {
        // The signature and claims are checked here (no I/O); then the rate limit and the
        // authoritative revocation check (a revocation made a moment ago on another replica counts
        // at once) go to Redis together, in one command.
        const verified = await verifier.verify(req.valid.body.token).then(
          (claims) => ({ claims, error: undefined }),
          (error: unknown) => {
            if (!(error instanceof TokenError)) throw error;
            return { claims: undefined, error };
          },
        );
        const caller = req.ip ?? 'unknown';
        const [limit, revoked] = verified.claims
          ? await limits.validate.takeAndReadScore(caller, REVOKED_TOKENS_KEY, verified.claims.jti).then(({ state, score }) => [state, score !== null] as const)
          : [await limits.validate.take(caller), false];
        enforceRateLimit(res, limit);
        const { claims } = verified;
        let error = revoked ? new TokenError('token_revoked', 'The token has been revoked') : verified.error;
        // A token issued for an API key dies with the key (deleted, rotated past its grace period).
        if (claims && !error && claims.api_key_id && !(await apiKeys.isLive(claims.api_key_id))) {
          error = new TokenError('token_revoked', 'The API key this token was issued for has been revoked');
        }
        if (!claims || error) return { valid: false as const, error: error!.reason, message: error!.message };
        return { valid: true as const, payload: { sub: claims.sub, exp: claims.exp, roles: claims.roles, permissions: claims.permissions } };
      },
    });
}
