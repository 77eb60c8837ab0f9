import { z } from 'zod';

/** A member's role in a team: viewers read the team's resources, editors also change and run them. */
export const TeamRole = z.enum(['viewer', 'editor', 'admin']);
export type TeamRole = z.infer<typeof TeamRole>;

/** A team the caller belongs to, as its token carries it. */
export const TeamMembershipClaim = z.object({ id: z.string().min(1), role: TeamRole });
export type TeamMembershipClaim = z.infer<typeof TeamMembershipClaim>;

/**
 * The actor of a delegated token (RFC 8693, section 4.1): the service acting for `sub`. A chain of
 * delegations nests, the most recent actor outermost.
 */
export interface ActorClaim {
  sub: string;
  client_id?: string;
  act?: ActorClaim;
}
export const ActorClaim: z.ZodType<ActorClaim> = z.lazy(() =>
  z.object({ sub: z.string().min(1), client_id: z.string().optional(), act: ActorClaim.optional() }),
);

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
  /** The teams of the caller and their role in each (absent on tokens of service keys). */
  teams: z.array(TeamMembershipClaim).optional(),
  /** Present on a delegated token: the service acting for the subject. */
  act: ActorClaim.optional(),
});
export type AccessTokenClaims = z.infer<typeof AccessTokenClaims>;

/** Permissions are `<resource>:<action>`; `*` alone, or `<resource>:*`, grants more than one. */
export const Permission = z.string().regex(/^(\*|[a-z0-9-]+:(\*|[a-z0-9-]+))$/, 'a permission is `<resource>:<action>` or `*`');
