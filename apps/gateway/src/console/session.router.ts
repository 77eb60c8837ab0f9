import { gateway } from '@platform/contracts';
import { toApiError, type ApiRouter } from '@platform/http';
import type { Logger } from '@platform/telemetry';
import type { Request, RequestHandler, Response } from 'express';
import { z } from 'zod';
import type { ConsoleOAuth } from './oauth.flow';
import { OAUTH_STATE_TTL_SECONDS } from './oauth.flow';
import { clearOAuthCookie, clearSessionCookie, OAUTH_COOKIE, readCookie, SESSION_COOKIE, setOAuthCookie, setSessionCookie } from './session.cookie';
import type { ConsoleSessions, IssuedSession } from './session.service';

export interface SessionRoutesDeps {
  sessions: ConsoleSessions;
  oauth: ConsoleOAuth;
  csrf: RequestHandler;
  sessionMaxAgeSeconds: number;
  basePath: string;
  logger: Logger;
}

const Provider = z.object({ provider: z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'a provider name is lowercase letters, digits and hyphens') });
const Callback = z.object({
  code: z.string().min(1).max(2048).optional(),
  state: z.string().min(1).max(512).optional(),
  error: z.string().max(256).optional(),
});

const SESSION_RESPONSES = {
  401: { description: 'Invalid credentials, or no (or an expired) session cookie' },
  403: { description: '`csrf_rejected`: no `X-Platform-Console: 1` header, or another origin' },
  429: { description: 'Too many attempts' },
  503: { description: 'auth cannot be reached' },
};

/** Tokens are never cached by the browser or anything between. */
function answer(res: Response, issued: IssuedSession, maxAgeSeconds: number): gateway.ConsoleSession {
  res.setHeader('Cache-Control', 'no-store');
  setSessionCookie(res, issued.refreshToken, maxAgeSeconds);
  return issued.body;
}

/** The console's session endpoints under `/api/v1/console` (backend-for-frontend). */
export function sessionRoutes(api: ApiRouter, deps: SessionRoutesDeps): void {
  const { sessions, oauth, csrf, sessionMaxAgeSeconds } = deps;
  const session = (req: Request) => readCookie(req, SESSION_COOKIE);
  api
    .route({
      method: 'post',
      path: '/console/session',
      summary: 'Sign the console in with a username and password (the refresh token goes into the HttpOnly cookie only)',
      tags: ['console'],
      access: 'public',
      before: [csrf],
      body: gateway.ConsoleLoginRequest,
      responses: { 200: { description: 'The access token and the user; Set-Cookie: platform_session', schema: gateway.ConsoleSession }, ...SESSION_RESPONSES },
      handler: async (req, res) => answer(res, await sessions.login(req.valid.body.username, req.valid.body.password, req.ip), sessionMaxAgeSeconds),
    })
    .route({
      method: 'post',
      path: '/console/session/refresh',
      summary: "Rotate the session cookie's refresh token at auth for a new access token",
      tags: ['console'],
      access: 'public',
      before: [csrf],
      responses: { 200: { description: 'A new access token; a new cookie', schema: gateway.ConsoleSession }, ...SESSION_RESPONSES },
      handler: async (req, res) => {
        try {
          return answer(res, await sessions.refresh(session(req), req.ip), sessionMaxAgeSeconds);
        } catch (error) {
          if (toApiError(error).status === 401) clearSessionCookie(res);
          throw error;
        }
      },
    })
    .route({
      method: 'delete',
      path: '/console/session',
      summary: 'Sign out: revoke the session at auth and clear the cookie',
      tags: ['console'],
      access: 'public',
      before: [csrf],
      responses: { 204: { description: 'Signed out' }, ...SESSION_RESPONSES },
      handler: async (req, res) => {
        const refreshToken = session(req);
        clearSessionCookie(res);
        await sessions.logout(refreshToken, req.ip);
        res.status(204).end();
      },
    })
    .route({
      method: 'get',
      path: '/console/providers',
      summary: 'The identity providers the console offers sign-in with',
      tags: ['console'],
      access: 'public',
      responses: { 200: { description: 'Each provider and the URL that starts its sign-in', schema: gateway.ConsoleProviders } },
      handler: () => ({ providers: oauth.providers.map((name) => ({ name, url: `${deps.basePath}/console/oauth/${name}` })) }),
    })
    .route({
      method: 'get',
      path: '/console/oauth/:provider',
      summary: 'Start signing in at an identity provider (authorization code with PKCE, through auth)',
      tags: ['console'],
      access: 'public',
      params: Provider,
      responses: {
        302: { description: "To the identity provider's sign-in page" },
        404: { description: 'No such provider' },
        503: { description: 'auth cannot be reached' },
      },
      handler: async (req, res) => {
        const { location, state } = await oauth.start(req.valid.params.provider);
        setOAuthCookie(res, state, OAUTH_STATE_TTL_SECONDS);
        res.setHeader('Cache-Control', 'no-store');
        res.redirect(302, location);
      },
    })
    .route({
      method: 'get',
      path: '/console/oauth/:provider/callback',
      summary: "The identity provider's redirect back: sets the session cookie and returns to the console",
      tags: ['console'],
      access: 'public',
      params: Provider,
      query: Callback,
      responses: { 302: { description: 'To the console (`/`), with `?oauth_error=<code>` when the sign-in failed' } },
      handler: async (req, res) => {
        const { code, state, error } = req.valid.query;
        const cookieState = readCookie(req, OAUTH_COOKIE);
        clearOAuthCookie(res);
        res.setHeader('Cache-Control', 'no-store');
        // A browser is waiting on this page: every outcome goes back to the console, which shows it.
        try {
          if (error || !code || !state) throw Object.assign(new Error(error ?? 'missing code'), { status: 400, code: error ?? 'invalid_request' });
          const issued = await oauth.finish(req.valid.params.provider, { code, state, cookieState }, req.ip);
          setSessionCookie(res, issued.refreshToken, sessionMaxAgeSeconds);
          res.redirect(302, '/');
        } catch (failure) {
          const known = toApiError(failure);
          if (known.status >= 500) deps.logger.warn({ err: failure }, 'console sign-in failed');
          const code = (failure as { code?: unknown }).code;
          res.redirect(302, `/?oauth_error=${encodeURIComponent(typeof code === 'string' && /^[a-z_]{1,64}$/.test(code) ? code : known.code)}`);
        }
      },
    });
}
