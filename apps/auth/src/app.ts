import { RedisRevocationList, StaticKeyResolver, TokenVerifier } from '@platform/jwt';
import { createServiceApp, rateLimit } from '@platform/http';
import { type Logger } from '@platform/telemetry';
import type { Request } from 'express';
import type { Redis } from 'ioredis';
import { ApiKeys } from './api-keys/api-keys';
import { apiKeysRouter } from './api-keys/api-keys.router';
import { AuditLog } from './audit/audit-log';
import { auditRouter } from './audit/audit.router';
import type { AuthConfig } from './config';
import { SecretBox } from './crypto/secret-box';
import type { AuthDatabase } from './database';
import { AccountLockout } from './login/account-lockout';
import { Login } from './login/login';
import { IdpClient } from './oauth/idp-client';
import { OAuthFlow } from './oauth/oauth';
import { oauthRouter } from './oauth/oauth.router';
import { OAuthProviders } from './oauth/providers';
import { jwksRouter } from './signing-keys/jwks.router';
import { KeyRing } from './signing-keys/key-ring';
import { signingKeysAdminRouter } from './signing-keys/signing-keys.router';
import { AccessTokenIssuer } from './tokens/access-tokens';
import { RefreshTokens } from './tokens/refresh-tokens';
import { Revocation } from './tokens/revocation';
import { tokensRouter } from './tokens/tokens.router';
import { Users } from './users/users';
import { usersRouter } from './users/users.router';

export const AUTH_VERSION = '1.0.0';

export interface AuthDeps {
  config: AuthConfig;
  db: AuthDatabase;
  redis: Redis;
  logger: Logger;
  /** False for `SERVICE_ROLE=worker`: health endpoints only. */
  serveApi?: boolean;
}

/** Builds the auth service: its signing keys loaded, the bootstrap admin present, the app ready to listen. */
export async function createAuthService({ config, db, redis, logger, serveApi = true }: AuthDeps) {
  const box = SecretBox.fromConfig(config.AUTH_ENCRYPTION_KEY);
  const audit = new AuditLog(db);
  const keys = new KeyRing(db, box, redis, {
    accessTokenTtlSeconds: config.AUTH_ACCESS_TOKEN_TTL,
    prepublishSeconds: config.AUTH_KEY_PREPUBLISH,
    rotationIntervalSeconds: config.AUTH_KEY_ROTATION_INTERVAL,
  });
  await keys.start();
  const revocations = new RedisRevocationList(redis);
  await revocations.start();
  const issuer = config.AUTH_PUBLIC_URL.replace(/\/$/, '');
  const verifier = new TokenVerifier({ keys: new StaticKeyResolver(() => keys.publicKeys()), issuer, audience: config.AUTH_AUDIENCE, revocations });

  const users = new Users(db, audit);
  await users.ensureAdmin(config.AUTH_ADMIN_USERNAME, config.AUTH_ADMIN_PASSWORD, logger);
  const apiKeys = new ApiKeys(db, audit);
  const accessTokens = new AccessTokenIssuer(keys, { issuer, audience: config.AUTH_TOKEN_AUDIENCE, ttlSeconds: config.AUTH_ACCESS_TOKEN_TTL });
  const refreshTokens = new RefreshTokens(db, redis, accessTokens, audit, { ttlSeconds: config.AUTH_REFRESH_TOKEN_TTL, graceSeconds: config.AUTH_REFRESH_REUSE_GRACE });
  const lockout = new AccountLockout(redis, { threshold: config.AUTH_LOCKOUT_THRESHOLD, windowSeconds: config.AUTH_LOGIN_RATE_WINDOW, baseSeconds: config.AUTH_LOCKOUT_BASE, maxSeconds: config.AUTH_LOCKOUT_MAX });
  const login = new Login(users, apiKeys, lockout, refreshTokens, accessTokens, audit);
  const providers = new OAuthProviders(db, box, config);
  const flow = new OAuthFlow(db, providers, new IdpClient(), refreshTokens, box, audit, config);

  const byIp = (req: Request) => req.ip ?? 'unknown';
  const limits = {
    login: rateLimit({ redis, name: 'auth-login', points: config.AUTH_LOGIN_RATE_LIMIT, windowSeconds: config.AUTH_LOGIN_RATE_WINDOW, key: byIp }),
    apiKeyLogin: rateLimit({ redis, name: 'auth-api-key', points: config.AUTH_LOGIN_RATE_LIMIT * 6, windowSeconds: config.AUTH_LOGIN_RATE_WINDOW, key: byIp }),
    refresh: rateLimit({ redis, name: 'auth-refresh', points: config.AUTH_REFRESH_RATE_LIMIT, windowSeconds: config.AUTH_REFRESH_RATE_WINDOW, key: byIp }),
    validate: rateLimit({ redis, name: 'auth-validate', points: config.AUTH_VALIDATE_RATE_LIMIT, windowSeconds: config.AUTH_VALIDATE_RATE_WINDOW, key: byIp }),
  };

  const basePath = '/api/v1/auth';
  const routers = serveApi
    ? [
        { basePath: '/.well-known', router: jwksRouter(keys) },
        { basePath, router: tokensRouter({ verifier, login, refreshTokens, revocation: new Revocation(verifier, refreshTokens, audit, redis), redis, limits }) },
        { basePath, router: oauthRouter({ verifier, flow, providers, audit, limits }) },
        { basePath, router: usersRouter(verifier, users) },
        { basePath, router: apiKeysRouter(verifier, apiKeys) },
        { basePath, router: signingKeysAdminRouter(verifier, keys, audit) },
        { basePath, router: auditRouter(verifier, audit) },
      ]
    : [];

  const app = createServiceApp({
    name: 'auth',
    logger,
    openapi: { title: 'Authentication API', version: AUTH_VERSION, description: 'Tokens, API keys, OAuth 2.0 with PKCE, signing keys and the audit log (spec 1).' },
    health: { checks: { database: () => db.$queryRaw`SELECT 1`, cache: () => redis.ping() } },
    routers,
  });

  return {
    app,
    keys,
    audit,
    async close() {
      await keys.stop();
      await revocations.stop();
    },
  };
}
