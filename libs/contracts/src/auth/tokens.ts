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
