import { baseEnvShape, ConfigError, env, loadConfig } from '@platform/config';
import { createRateLimiter, rateLimit, WorkLimiter } from '@platform/http';
import { RedisRevocationList, StaticKeyResolver, TokenVerifier } from '@platform/jwt';
import { defineService, ShutdownPriority } from '@platform/service-kit';
import type { Request } from 'express';
import { z } from 'zod';
import { ApiKeysRepository } from './api-keys/api-keys.repository';
import { apiKeysRouter } from './api-keys/api-keys.router';
import { ApiKeys } from './api-keys/api-keys.service';
import { AuditRepository } from './audit/audit.repository';
import { auditRouter } from './audit/audit.router';
import { AuditLog } from './audit/audit.service';
import { PasswordWork } from './crypto/passwords';
import { SecretBox } from './crypto/secret-box';
import { createDatabase } from './database';
import { AccountLockout } from './login/account-lockout';
import { apiKeyPrefixOf, loginRateLimit, usernameOf } from './login/login-rate-limit';
import { Login } from './login/login.service';
import { IdpClient } from './oauth/idp-client';
import { OAuthRepository } from './oauth/oauth.repository';
import { oauthRouter } from './oauth/oauth.router';
import { OAuthFlow } from './oauth/oauth.service';
import { OAuthProviders } from './oauth/providers';
import { RoleMapping } from './oauth/role-mapping';
import { jwksRouter } from './signing-keys/jwks.router';
import { keyRotationQueue, rotationJob, scheduleRotationChecks } from './signing-keys/key-rotation.queue';
import { SigningKeysRepository } from './signing-keys/signing-keys.repository';
import { signingKeysAdminRouter } from './signing-keys/signing-keys.router';
import { KeyRing } from './signing-keys/signing-keys.service';
import { AccessTokenIssuer } from './tokens/access-tokens';
import { Revocation } from './tokens/revocation';
import { TokensRepository } from './tokens/tokens.repository';
import { TeamsRepository } from './teams/teams.repository';
import { teamsRouter } from './teams/teams.router';
import { Teams } from './teams/teams.service';
import { TokenExchange } from './tokens/token-exchange.service';
import { tokensRouter } from './tokens/tokens.router';
import { RefreshTokens } from './tokens/tokens.service';
import { UsersRepository } from './users/users.repository';
import { usersRouter } from './users/users.router';
import { Users } from './users/users.service';

const DEFAULT_ROLE_MAPPINGS = JSON.stringify([
  { group: 'platform/admins', role: 'admin', permissions: ['*'] },
  {
    group: 'platform/developers',
    role: 'developer',
    permissions: ['agents:read', 'agents:write', 'registry:read', 'registry:write', 'mcp:read', 'workflows:read', 'workflows:write'],
  },
  { group: 'platform', role: 'user', permissions: ['agents:read', 'registry:read', 'mcp:read', 'workflows:read'] },
]);

/** The auth service's own env fields (beside the common ones of `@platform/config`). */
export const authConfig = {
  /** Public URL of this service: the `iss` of every token it signs. */
  AUTH_PUBLIC_URL: z.string().url().default('http://127.0.0.1:3001'),
  /** `aud` of issued tokens (comma-separated); every service accepts its own AUTH_AUDIENCE. */
  AUTH_TOKEN_AUDIENCE: env.list('agent-platform'),
  AUTH_ACCESS_TOKEN_TTL: env.seconds(3600),
  AUTH_REFRESH_TOKEN_TTL: env.seconds(30 * 24 * 3600),
  /** Two refreshes of one token within this many seconds (two tabs, a retry) both succeed. */
  AUTH_REFRESH_REUSE_GRACE: z.coerce.number().int().min(0).max(60).default(10),
  AUTH_ADMIN_USERNAME: z.string().min(1).default('admin'),
  AUTH_ADMIN_PASSWORD: z.string().min(8).optional(),
  /** 32 bytes (base64 or hex) that encrypt signing keys, IdP tokens and client secrets at rest. */
  AUTH_ENCRYPTION_KEY: z.string().optional(),
  AUTH_KEY_ROTATION_INTERVAL: env.seconds(30 * 24 * 3600),
  /** How long a new signing key sits in the JWKS before it signs (verifier caches refresh). */
  AUTH_KEY_PREPUBLISH: z.coerce.number().int().min(0).default(600),
  /** Login attempts per account (username, or API key) in the window (spec 1: 10 per 15 minutes). */
  AUTH_LOGIN_RATE_LIMIT: z.coerce.number().int().positive().default(10),
  /** Login attempts per client address in the window; defaults to AUTH_LOGIN_RATE_LIMIT (raise it behind a NAT). */
  AUTH_LOGIN_IP_RATE_LIMIT: z.coerce.number().int().positive().optional(),
  AUTH_LOGIN_RATE_WINDOW: env.seconds(15 * 60),
  AUTH_REFRESH_RATE_LIMIT: z.coerce.number().int().positive().default(100),
  AUTH_REFRESH_RATE_WINDOW: env.seconds(3600),
  AUTH_VALIDATE_RATE_LIMIT: z.coerce.number().int().positive().default(1000),
  AUTH_VALIDATE_RATE_WINDOW: env.seconds(60),
  /** Password hashes (scrypt, 32 MiB each) computed at once, and how many more may wait; past that, 503. */
  AUTH_PASSWORD_HASH_CONCURRENCY: z.coerce.number().int().positive().default(2),
  AUTH_PASSWORD_HASH_QUEUE: z.coerce.number().int().min(0).default(100),
  /** Failed logins on one account before it locks; each further lock lasts twice as long. */
  AUTH_LOCKOUT_THRESHOLD: z.coerce.number().int().positive().default(5),
  AUTH_LOCKOUT_BASE: env.seconds(60),
  AUTH_LOCKOUT_MAX: env.seconds(24 * 3600),
  /** Redirect URIs the OAuth flow may return to, matched exactly (comma-separated). */
  AUTH_OAUTH_REDIRECT_URIS: env.list(''),
  /** Allows http://localhost and http://127.0.0.1 callbacks on any port: development only. */
  AUTH_OAUTH_ALLOW_DEV_CALLBACK: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
  AUTH_OAUTH_STATE_TTL: env.seconds(600),
  AUTH_ROLE_MAPPINGS: z
    .string()
    .default(DEFAULT_ROLE_MAPPINGS)
    .transform((value, ctx) => {
      try {
        return z.array(RoleMapping).parse(JSON.parse(value));
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be a JSON array of {group, role, permissions, team?: {name, role}}' });
        return z.NEVER;
      }
    }),
  AUTH_GITLAB_URL: z.string().url().default('https://gitlab.com'),
  AUTH_GITLAB_CLIENT_ID: z.string().optional(),
  AUTH_GITLAB_CLIENT_SECRET: z.string().optional(),
  AUTH_GITLAB_CALLBACK_URL: z.string().url().optional(),
};

const authShape = { ...baseEnvShape, PORT: env.port(3001), ...authConfig };
export type AuthConfig = Readonly<z.output<z.ZodObject<typeof authShape>>>;

/** Settings that are valid one by one but not together. */
function assertCoherent(config: AuthConfig): void {
  if (config.NODE_ENV === 'production' && !config.AUTH_ENCRYPTION_KEY) {
    throw new ConfigError('Invalid configuration: AUTH_ENCRYPTION_KEY is required in production');
  }
}

/** The auth configuration from an environment, checked as the service checks it on start. */
export function loadAuthConfig(source: NodeJS.ProcessEnv = process.env): AuthConfig {
  const config = loadConfig(authShape, source);
  assertCoherent(config);
  return config;
}

/**
 * The auth service (spec 1): tokens, API keys, OAuth 2.0 with PKCE, signing keys and the audit
 * log. It verifies the tokens it signs itself (its key ring), not through the JWKS verifier the
 * other services get from the bootstrap. Its queue checks every 15 minutes whether the signing
 * key is due for rotation.
 */
export const authService = defineService({
  name: 'auth',
  version: '1.0.0',
  port: 3001,
  openapi: { title: 'Authentication API', description: 'Tokens, API keys, OAuth 2.0 with PKCE, signing keys and the audit log (spec 1).' },
  config: authConfig,
  database: createDatabase,
  async build(infra) {
    const { config, db, redis, logger } = infra;
    assertCoherent(config);
    const box = SecretBox.fromConfig(config.AUTH_ENCRYPTION_KEY);
    const audit = new AuditLog(new AuditRepository(db));
    const keys = new KeyRing(new SigningKeysRepository(db), box, redis, {
      accessTokenTtlSeconds: config.AUTH_ACCESS_TOKEN_TTL,
      prepublishSeconds: config.AUTH_KEY_PREPUBLISH,
      rotationIntervalSeconds: config.AUTH_KEY_ROTATION_INTERVAL,
    });
    await keys.start();
    infra.onShutdown('signing keys', () => keys.stop(), ShutdownPriority.components);
    const revocations = new RedisRevocationList(redis);
    await revocations.start();
    infra.onShutdown('revocations', () => revocations.stop(), ShutdownPriority.components);
    const issuer = config.AUTH_PUBLIC_URL.replace(/\/$/, '');
    const verifier = new TokenVerifier({ keys: new StaticKeyResolver(() => keys.publicKeys()), issuer, audience: config.AUTH_AUDIENCE, revocations });

    const passwords = new PasswordWork(
      new WorkLimiter({ name: 'password hashing', concurrency: config.AUTH_PASSWORD_HASH_CONCURRENCY, queue: config.AUTH_PASSWORD_HASH_QUEUE }),
    );
    const users = new Users(new UsersRepository(db), audit, passwords);
    await users.ensureAdmin(config.AUTH_ADMIN_USERNAME, config.AUTH_ADMIN_PASSWORD, logger);
    const apiKeys = new ApiKeys(new ApiKeysRepository(db), audit, redis, config.AUTH_ACCESS_TOKEN_TTL);
    const accessTokens = new AccessTokenIssuer(keys, { issuer, audience: config.AUTH_TOKEN_AUDIENCE, ttlSeconds: config.AUTH_ACCESS_TOKEN_TTL });
    const refreshTokens = new RefreshTokens(new TokensRepository(db), redis, accessTokens, audit, {
      ttlSeconds: config.AUTH_REFRESH_TOKEN_TTL,
      graceSeconds: config.AUTH_REFRESH_REUSE_GRACE,
    });
    const lockout = new AccountLockout(redis, {
      threshold: config.AUTH_LOCKOUT_THRESHOLD,
      windowSeconds: config.AUTH_LOGIN_RATE_WINDOW,
      baseSeconds: config.AUTH_LOCKOUT_BASE,
      maxSeconds: config.AUTH_LOCKOUT_MAX,
    });
    const teams = new Teams(new TeamsRepository(db), audit);
    const login = new Login(users, apiKeys, lockout, refreshTokens, accessTokens, audit, passwords, teams);
    const oauthStore = new OAuthRepository(db);
    const providers = new OAuthProviders(oauthStore, box, config);
    const flow = new OAuthFlow(oauthStore, providers, new IdpClient(), refreshTokens, box, audit, config, teams);

    await scheduleRotationChecks(infra.queues.producer(keyRotationQueue));
    infra.queues.process(keyRotationQueue, rotationJob(keys, audit), { concurrency: 1 });

    const byIp = (req: Request) => req.ip ?? 'unknown';
    const limits = {
      login: loginRateLimit({
        redis,
        name: 'auth-login',
        accountPoints: config.AUTH_LOGIN_RATE_LIMIT,
        ipPoints: config.AUTH_LOGIN_IP_RATE_LIMIT ?? config.AUTH_LOGIN_RATE_LIMIT,
        windowSeconds: config.AUTH_LOGIN_RATE_WINDOW,
        account: usernameOf,
      }),
      apiKeyLogin: loginRateLimit({
        redis,
        name: 'auth-api-key',
        accountPoints: config.AUTH_LOGIN_RATE_LIMIT * 6,
        ipPoints: (config.AUTH_LOGIN_IP_RATE_LIMIT ?? config.AUTH_LOGIN_RATE_LIMIT) * 6,
        windowSeconds: config.AUTH_LOGIN_RATE_WINDOW,
        account: apiKeyPrefixOf,
      }),
      refresh: rateLimit({ redis, name: 'auth-refresh', points: config.AUTH_REFRESH_RATE_LIMIT, windowSeconds: config.AUTH_REFRESH_RATE_WINDOW, key: byIp }),
      // Per IP, taken by the /validate handler itself (see tokensRouter).
      validate: createRateLimiter({ redis, name: 'auth-validate', points: config.AUTH_VALIDATE_RATE_LIMIT, windowSeconds: config.AUTH_VALIDATE_RATE_WINDOW }),
    };
    const basePath = '/api/v1/auth';
    return {
      routers: [
        { basePath: '/.well-known', router: jwksRouter(keys) },
        {
          basePath,
          router: tokensRouter({
            verifier,
            login,
            refreshTokens,
            apiKeys,
            revocation: new Revocation(verifier, refreshTokens, audit, redis),
            tokenExchange: new TokenExchange(verifier, accessTokens, apiKeys, redis, audit),
            limits,
          }),
        },
        { basePath, router: oauthRouter({ verifier, flow, providers, audit, limits }) },
        { basePath, router: usersRouter(verifier, users) },
        { basePath, router: teamsRouter(verifier, teams) },
        { basePath, router: apiKeysRouter(verifier, apiKeys) },
        { basePath, router: signingKeysAdminRouter(verifier, keys, audit) },
        { basePath, router: auditRouter(verifier, audit) },
      ],
      /** Reached by tests: the key ring and the audit log. */
      keys,
      audit,
    };
  },
});
