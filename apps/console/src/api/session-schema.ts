import { z } from 'zod';

/**
 * The gateway's answer to sign-in and refresh (`/api/v1/console/session`). Kept here until the
 * gateway publishes it in `@platform/contracts`.
 */
export const ConsoleSession = z.object({
  accessToken: z.string().min(1),
  tokenType: z.string(),
  expiresIn: z.number().positive(),
  user: z.object({
    id: z.string(),
    username: z.string(),
    roles: z.array(z.string()),
    permissions: z.array(z.string()),
    teams: z.array(z.object({ id: z.string(), role: z.string() })).default([]),
  }),
});
export type ConsoleSession = z.infer<typeof ConsoleSession>;
export type SessionUser = ConsoleSession['user'];

export const OAuthProviderList = z.union([
  z.array(z.object({ id: z.string(), name: z.string().optional() }).loose()),
  z.object({ providers: z.array(z.object({ id: z.string(), name: z.string().optional() }).loose()) }).transform((v) => v.providers),
]);
export type OAuthProvider = { id: string; name?: string };
