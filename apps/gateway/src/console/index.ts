import type { ApiRouter } from '@platform/http';
import type { TokenVerifier } from '@platform/jwt';
import type { Logger } from '@platform/telemetry';
import type { Redis } from 'ioredis';
import { AuthSessions } from './auth-session.client';
import { allowedOrigins, type ConsoleConfig } from './console.config';
import { requireConsoleOrigin } from './csrf';
import { ConsoleOAuth } from './oauth.flow';
import { sessionRoutes } from './session.router';
import { ConsoleSessions } from './session.service';
import { defaultConsoleDir, staticConsole } from './static-console';

export { consoleConfig } from './console.config';

export interface ConsoleFeatureDeps {
  basePath: string;
  api: ApiRouter;
  config: ConsoleConfig;
  verifier: TokenVerifier;
  redis: Redis;
  logger: Logger;
}

/** The web console at the gateway: its session endpoints on the API, and its files at the root. */
export function consoleFeature({ basePath, api, config, verifier, redis, logger }: ConsoleFeatureDeps) {
  const auth = new AuthSessions({ authUrl: config.AUTH_URL, clientId: config.GATEWAY_CONSOLE_CLIENT_ID, timeoutMs: config.GATEWAY_UPSTREAM_TIMEOUT_MS });
  const maxAge = config.GATEWAY_CONSOLE_SESSION_MAX_AGE;
  const sessions = new ConsoleSessions(auth, verifier, redis, maxAge);
  const publicUrl = config.GATEWAY_PUBLIC_URL.replace(/\/+$/, '');
  const oauth = new ConsoleOAuth(auth, sessions, redis, {
    providers: config.GATEWAY_CONSOLE_OAUTH_PROVIDERS,
    callbackUrl: (provider) => `${publicUrl}${basePath}/console/oauth/${provider}/callback`,
  });
  const csrf = requireConsoleOrigin({ publicUrl, allowedOrigins: allowedOrigins(config) });
  sessionRoutes(api, { sessions, oauth, csrf, sessionMaxAgeSeconds: maxAge, basePath, logger });
  return { router: staticConsole(config.GATEWAY_CONSOLE_DIR ?? defaultConsoleDir()) };
}
