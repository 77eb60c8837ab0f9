import type { CookieOptions, Request, Response } from 'express';

/** The refresh token's cookie: sent only to the console's session endpoints, never readable by scripts. */
export const SESSION_COOKIE = 'platform_session';
export const SESSION_PATH = '/api/v1/console';
/** The OAuth redirect flow's state, bound to this browser until the identity provider sends it back. */
export const OAUTH_COOKIE = 'platform_oauth';
export const OAUTH_PATH = '/api/v1/console/oauth';

const session = (maxAgeSeconds: number): CookieOptions => ({
  httpOnly: true,
  secure: true,
  sameSite: 'strict',
  path: SESSION_PATH,
  maxAge: maxAgeSeconds * 1000,
});

export function setSessionCookie(res: Response, refreshToken: string, maxAgeSeconds: number): void {
  res.cookie(SESSION_COOKIE, refreshToken, session(maxAgeSeconds));
}

export function clearSessionCookie(res: Response): void {
  res.clearCookie(SESSION_COOKIE, { ...session(0), maxAge: undefined });
}

// Lax, not Strict: the identity provider's redirect back is a cross-site navigation, which must carry it.
export function setOAuthCookie(res: Response, state: string, maxAgeSeconds: number): void {
  res.cookie(OAUTH_COOKIE, state, { httpOnly: true, secure: true, sameSite: 'lax', path: OAUTH_PATH, maxAge: maxAgeSeconds * 1000 });
}

export function clearOAuthCookie(res: Response): void {
  res.clearCookie(OAUTH_COOKIE, { httpOnly: true, secure: true, sameSite: 'lax', path: OAUTH_PATH });
}

/** One cookie of the request (the first of that name: browsers send the most specific path first). */
export function readCookie(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  let found: string | undefined;
  for (const pair of header.split(';')) {
    const at = pair.indexOf('=');
    if (at === -1 || pair.slice(0, at).trim() !== name) continue;
    try {
      found ??= decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      // a value that does not decode is no session
    }
  }
  return found || undefined;
}
