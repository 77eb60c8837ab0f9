import { z } from 'zod';

const bounded = (max: number) => z.string().min(1).max(max);
const httpUrl = z.url({ protocol: /^https?$/ }).max(2048);

export const AuthorizeQuery = z.object({
  provider: z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'a provider name is lowercase letters, digits and hyphens'),
  redirect_uri: httpUrl.optional(),
  client_id: bounded(128).optional(),
  state: z
    .string()
    .regex(/^[A-Za-z0-9._~-]{16,512}$/, 'state is 16 to 512 unreserved characters')
    .optional(),
  code_challenge: z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'code_challenge is base64url(SHA-256(verifier)), 43 characters'),
  code_challenge_method: z.string().default('S256'),
  scope: z.string().max(512).optional(),
});

export const OAuthTokenRequest = z.object({
  grant_type: z.literal('authorization_code'),
  code: bounded(2048),
  redirect_uri: httpUrl,
  client_id: bounded(128),
  code_verifier: z.string().regex(/^[A-Za-z0-9._~-]{43,128}$/, 'code_verifier is 43 to 128 unreserved characters'),
  state: z.string().max(512).optional(),
});

export const OAuthUser = z.object({
  id: z.string(),
  username: z.string(),
  email: z.string().nullable(),
  name: z.string().nullable(),
  avatar_url: z.string().nullable(),
  idp_id: z.number().int().nullable(),
  roles: z.array(z.string()),
  groups: z.array(z.object({ id: z.number().int(), name: z.string(), role: z.string().nullable() })),
});

export const OAuthTokenResponse = z.object({
  access_token: z.string(),
  refresh_token: z.string(),
  token_type: z.literal('Bearer'),
  expires_in: z.number().int(),
  scope: z.string(),
  user: OAuthUser,
});

export const IdpTokenResponse = z.object({
  access_token: z.string(),
  token_type: z.string(),
  expires_in: z.number().int(),
  refresh_token: z.string().nullable(),
  created_at: z.number().int(),
  scope: z.string(),
});

export const OAuthRefreshRequest = z.object({
  grant_type: z.literal('refresh_token'),
  refresh_token: bounded(512),
  provider: z.string().max(63),
});

export const OAuthRefreshResponse = z.object({
  access_token: z.string(),
  refresh_token: z.string(),
  token_type: z.literal('Bearer'),
  expires_in: z.number().int(),
  idp_token: z.object({ access_token: z.string(), refresh_token: z.string().nullable(), expires_in: z.number().int() }),
});

export const ConfigureProviderRequest = z.object({
  provider: z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'a provider name is lowercase letters, digits and hyphens'),
  config: z
    .object({
      authorizationURL: httpUrl,
      tokenURL: httpUrl,
      userInfoURL: httpUrl,
      groupsURL: httpUrl.optional(),
      clientID: bounded(256),
      clientSecret: bounded(1024),
      callbackURL: httpUrl,
      scopes: z
        .array(z.string().regex(/^[A-Za-z0-9_:.-]{1,64}$/))
        .max(20)
        .optional(),
    })
    .strict(),
});

export const ConfigureProviderResponse = z.object({
  provider: z.string(),
  configured: z.literal(true),
  authorizationURL: z.string(),
  tokenURL: z.string(),
  userInfoURL: z.string(),
  clientID: z.string(),
  callbackURL: z.string(),
  scopes: z.array(z.string()),
  updatedAt: z.string(),
});
