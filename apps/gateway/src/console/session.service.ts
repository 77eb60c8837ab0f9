import type { gateway } from '@platform/contracts';
import { unauthorized } from '@platform/http';
import type { TokenVerifier } from '@platform/jwt';
import type { Redis } from 'ioredis';
import type { AuthSessions, TokenPair } from './auth-session.client';

/** What a session call answers: the body for the console, the refresh token for the cookie only. */
export interface IssuedSession {
  body: gateway.ConsoleSession;
  refreshToken: string;
}

export const noSession = () => unauthorized('No console session: sign in again', { reason: 'no_session' }, 'invalid_session');

/**
 * The console's session (backend-for-frontend): logs in, rotates and revokes at auth, and reads
 * who the user is from the access token auth issued. Tokens carry no username, so the one a user
 * signed in with is remembered in Redis for the refreshes that follow (a cache: the user id
 * stands in when it is gone).
 */
export class ConsoleSessions {
  constructor(
    private readonly auth: AuthSessions,
    private readonly verifier: TokenVerifier,
    private readonly redis: Redis,
    private readonly sessionMaxAgeSeconds: number,
  ) {}

  async login(username: string, password: string, clientIp?: string): Promise<IssuedSession> {
    return this.issue(await this.auth.login(username, password, clientIp), username);
  }

  async refresh(refreshToken: string | undefined, clientIp?: string): Promise<IssuedSession> {
    if (!refreshToken) throw noSession();
    const tokens = await this.auth.refresh(refreshToken, clientIp).catch((error: { status?: number }) => {
      throw error.status === 401 || error.status === 400 ? noSession() : error;
    });
    return this.issue(tokens);
  }

  /**
   * Revokes the session at auth. Auth revokes a token for its owner's bearer only: the refresh
   * token is rotated once for an access token, which then revokes the new refresh token's family
   * (the cookie's too), and with it every access token the family issued (that one included).
   */
  async logout(refreshToken: string | undefined, clientIp?: string): Promise<void> {
    if (!refreshToken) throw noSession();
    const tokens = await this.auth.refresh(refreshToken, clientIp).catch((error: { status?: number }) => {
      // Already revoked or expired: the session is over all the same.
      if (error.status === 401 || error.status === 400) return undefined;
      throw error;
    });
    if (!tokens) return;
    await this.auth.revoke(tokens.refresh_token, 'refresh_token', tokens.access_token, clientIp);
  }

  /** The answer for tokens auth issued (after a password login, a rotation or an OAuth sign-in). */
  async issue(tokens: TokenPair, username?: string): Promise<IssuedSession> {
    const claims = await this.verifier.verify(tokens.access_token);
    const key = `gateway:console:username:${claims.sub}`;
    if (username) await this.redis.set(key, username, 'EX', this.sessionMaxAgeSeconds);
    const known = username ?? (await this.redis.get(key)) ?? claims.user?.name ?? claims.sub;
    return {
      refreshToken: tokens.refresh_token,
      body: {
        accessToken: tokens.access_token,
        tokenType: 'Bearer',
        expiresIn: tokens.expires_in,
        user: {
          id: claims.user?.id ?? claims.sub,
          username: known,
          roles: claims.roles,
          permissions: claims.permissions,
          teams: claims.teams ?? [],
        },
      },
    };
  }
}
