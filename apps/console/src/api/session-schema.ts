import { gateway } from '@platform/contracts';

/** The gateway's answer to sign-in and refresh (`/api/v1/console/session`). */
export const ConsoleSession = gateway.ConsoleSession;
export type ConsoleSession = gateway.ConsoleSession;
export type SessionUser = ConsoleSession['user'];

/** The identity providers the console offers a button for; `url` starts the provider's redirect flow. */
export const OAuthProviderList = gateway.ConsoleProviders;
export type OAuthProvider = gateway.ConsoleProviders['providers'][number];
