import { z } from 'zod';

const bounded = (max: number) => z.string().min(1).max(max);

export const LoginRequest = z.object({
  username: bounded(256),
  password: bounded(1024),
  client_id: bounded(128),
  grant_type: z.literal('password'),
});

export const TokenResponse = z.object({
  access_token: z.string(),
  refresh_token: z.string(),
  token_type: z.literal('Bearer'),
  expires_in: z.number().int(),
  scope: z.string(),
});

export const ApiKeyLoginRequest = z.object({ api_key: bounded(256), client_id: bounded(128) });
export const ApiKeyLoginResponse = z.object({
  access_token: z.string(),
  token_type: z.literal('Bearer'),
  expires_in: z.number().int(),
  service: z.string(),
  permissions: z.array(z.string()),
});

export const RefreshRequest = z.object({ refresh_token: bounded(512), grant_type: z.literal('refresh_token') });
export const RefreshResponse = TokenResponse.omit({ scope: true });

export const RevokeRequest = z.object({
  token: bounded(8192),
  token_type_hint: z.enum(['access_token', 'refresh_token']).optional(),
});
export const RevokeResponse = z.object({ revoked: z.boolean(), jti: z.string().nullable(), revokedAt: z.string() });

export const ValidateRequest = z.object({ token: bounded(8192) });
export const ValidateResponse = z.union([
  z.object({
    valid: z.literal(true),
    payload: z.object({ sub: z.string(), exp: z.number().int(), roles: z.array(z.string()), permissions: z.array(z.string()) }),
  }),
  z.object({ valid: z.literal(false), error: z.string(), message: z.string() }),
]);

export const Jwk = z.object({ kty: z.literal('RSA'), kid: z.string(), use: z.literal('sig'), alg: z.literal('RS256'), n: z.string(), e: z.string() });
export const JwksResponse = z.object({ keys: z.array(Jwk) });
export type Jwk = z.infer<typeof Jwk>;

/** RFC 8693 token exchange: the grant type and the one token type the platform exchanges. */
export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

/**
 * `POST /token` (form-encoded or JSON). `grant_type` and the token types are strings here, so that
 * a wrong one gets its own RFC 8693 error (`unsupported_grant_type`, `invalid_request`) rather
 * than a generic validation error.
 */
export const TokenExchangeRequest = z.object({
  grant_type: bounded(256),
  subject_token: bounded(8192),
  subject_token_type: bounded(256),
  /** Space-separated permissions, each granted by the subject's: the issued token carries only these. */
  scope: z.string().max(4096).optional(),
  audience: z.string().max(256).optional(),
  /** The actor, when it is not the bearer of the request. */
  actor_token: bounded(8192).optional(),
  actor_token_type: z.string().max(256).optional(),
  resource: z.string().max(2048).optional(),
  requested_token_type: z.string().max(256).optional(),
});

export const TokenExchangeResponse = z.object({
  access_token: z.string(),
  issued_token_type: z.literal(ACCESS_TOKEN_TYPE),
  token_type: z.literal('Bearer'),
  expires_in: z.number().int(),
  scope: z.string().optional(),
});
