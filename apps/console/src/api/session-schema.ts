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

/** The identity providers the console offers a button for; `url` starts the provider's redirect flow. */
export const OAuthProviderList = z.object({ providers: z.array(z.object({ name: z.string(), url: z.string() })) });
export type OAuthProvider = z.infer<typeof OAuthProviderList>['providers'][number];
