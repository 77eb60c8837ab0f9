import { z } from 'zod';

/** Claims of a platform access token (spec 1, "Access token (JWT)"). */
export const AccessTokenClaims = z.object({
  sub: z.string().min(1),
  iss: z.string(),
  aud: z.array(z.string()).min(1),
  exp: z.number().int(),
  iat: z.number().int(),
  nbf: z.number().int(),
  jti: z.string().min(1),
  scope: z.string(),
  roles: z.array(z.string()),
  permissions: z.array(z.string()),
  user: z.object({ id: z.string(), email: z.string().nullable().optional(), name: z.string().nullable().optional() }).optional(),
  client_id: z.string(),
  /** The API key a service exchanged for this token: revoking the key revokes the token. */
  api_key_id: z.string().min(1).optional(),
  token_use: z.enum(['access']).optional(),
});
export type AccessTokenClaims = z.infer<typeof AccessTokenClaims>;

/** Permissions are `<resource>:<action>`; `*` alone, or `<resource>:*`, grants more than one. */
export const Permission = z.string().regex(/^(\*|[a-z0-9-]+:(\*|[a-z0-9-]+))$/, 'a permission is `<resource>:<action>` or `*`');
