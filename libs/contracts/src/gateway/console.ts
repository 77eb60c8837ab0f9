import { z } from 'zod';
import { TeamMembershipClaim } from '../token';

/**
 * The console's session at the gateway (backend-for-frontend, OAuth 2.0 for Browser-Based Apps):
 * the access token in the body, the refresh token only in the HttpOnly `platform_session` cookie.
 */
export const ConsoleLoginRequest = z.object({
  username: z.string().min(1).max(256),
  password: z.string().min(1).max(1024),
});
export type ConsoleLoginRequest = z.infer<typeof ConsoleLoginRequest>;

/** Who is signed in, read from the access token's claims. */
export const ConsoleUser = z.object({
  id: z.string(),
  username: z.string(),
  roles: z.array(z.string()),
  permissions: z.array(z.string()),
  teams: z.array(TeamMembershipClaim),
});
export type ConsoleUser = z.infer<typeof ConsoleUser>;

export const ConsoleSession = z.object({
  accessToken: z.string(),
  tokenType: z.literal('Bearer'),
  /** Seconds the access token stays valid: refresh shortly before. */
  expiresIn: z.number().int(),
  user: ConsoleUser,
});
export type ConsoleSession = z.infer<typeof ConsoleSession>;

/** An identity provider the console offers a sign-in button for; `url` starts its redirect flow. */
export const ConsoleProvider = z.object({ name: z.string(), url: z.string() });
export const ConsoleProviders = z.object({ providers: z.array(ConsoleProvider) });
export type ConsoleProviders = z.infer<typeof ConsoleProviders>;
