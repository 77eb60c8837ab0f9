import { baseEnvShape, loadConfig } from '@platform/config';
import { z } from 'zod';

const seconds = (fallback: number) => z.coerce.number().int().positive().default(fallback);
const list = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((value) => value.split(',').map((item) => item.trim()).filter(Boolean));

/** Group path to role and permissions; a user holds the union over their groups. */
export const RoleMapping = z.object({
  group: z.string().min(1),
  role: z.string().min(1),
  permissions: z.array(z.string()).default([]),
});
export type RoleMapping = z.infer<typeof RoleMapping>;

const DEFAULT_ROLE_MAPPINGS = JSON.stringify([
  { group: 'platform/admins', role: 'admin', permissions: ['*'] },
  { group: 'platform/developers', role: 'developer', permissions: ['agents:read', 'agents:write', 'registry:read', 'registry:write', 'mcp:read', 'workflows:read', 'workflows:write'] },
  { group: 'platform', role: 'user', permissions: ['agents:read', 'registry:read', 'mcp:read', 'workflows:read'] },
]);

export const authEnvShape = {
  ...baseEnvShape,
  PORT: z.coerce.number().int().min(0).max(65535).default(3001),
  /** Public URL of this service: the `iss` of every token it signs. */
  AUTH_PUBLIC_URL: z.string().url().default('http://127.0.0.1:3001'),
  /** `aud` of issued tokens (comma-separated); every service accepts its own AUTH_AUDIENCE. */
  AUTH_TOKEN_AUDIENCE: list('agent-platform'),
  AUTH_ACCESS_TOKEN_TTL: seconds(3600),
  AUTH_REFRESH_TOKEN_TTL: seconds(30 * 24 * 3600),
  /** Two refreshes of one token within this many seconds (two tabs, a retry) both succeed. */
  AUTH_REFRESH_REUSE_GRACE: z.coerce.number().int().min(0).max(60).default(10),
  AUTH_ADMIN_USERNAME: z.string().min(1).default('admin'),
  AUTH_ADMIN_PASSWORD: z.string().min(8).optional(),
  /** 32 bytes (base64 or hex) that encrypt signing keys, IdP tokens and client secrets at rest. */
  AUTH_ENCRYPTION_KEY: z.string().optional(),
  AUTH_KEY_ROTATION_INTERVAL: seconds(30 * 24 * 3600),
  /** How long a new signing key sits in the JWKS before it signs (verifier caches refresh). */
  AUTH_KEY_PREPUBLISH: z.coerce.number().int().min(0).default(600),
  AUTH_LOGIN_RATE_LIMIT: z.coerce.number().int().positive().default(10),
  AUTH_LOGIN_RATE_WINDOW: seconds(15 * 60),
  AUTH_REFRESH_RATE_LIMIT: z.coerce.number().int().positive().default(100),
  AUTH_REFRESH_RATE_WINDOW: seconds(3600),
  AUTH_VALIDATE_RATE_LIMIT: z.coerce.number().int().positive().default(1000),
  AUTH_VALIDATE_RATE_WINDOW: seconds(60),
  /** Failed logins on one account before it locks; each further lock lasts twice as long. */
  AUTH_LOCKOUT_THRESHOLD: z.coerce.number().int().positive().default(5),
  AUTH_LOCKOUT_BASE: seconds(60),
  AUTH_LOCKOUT_MAX: seconds(24 * 3600),
  /** Redirect URIs the OAuth flow may return to, matched exactly (comma-separated). */
  AUTH_OAUTH_REDIRECT_URIS: list(''),
  /** Allows http://localhost and http://127.0.0.1 callbacks on any port: development only. */
  AUTH_OAUTH_ALLOW_DEV_CALLBACK: z.enum(['true', 'false']).default('false').transform((v) => v === 'true'),
  AUTH_OAUTH_STATE_TTL: seconds(600),
  AUTH_ROLE_MAPPINGS: z
    .string()
    .default(DEFAULT_ROLE_MAPPINGS)
    .transform((value, ctx) => {
      try {
        return z.array(RoleMapping).parse(JSON.parse(value));
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be a JSON array of {group, role, permissions}' });
        return z.NEVER;
      }
    }),
  AUTH_GITLAB_URL: z.string().url().default('https://gitlab.com'),
  AUTH_GITLAB_CLIENT_ID: z.string().optional(),
  AUTH_GITLAB_CLIENT_SECRET: z.string().optional(),
  AUTH_GITLAB_CALLBACK_URL: z.string().url().optional(),
};

export type AuthConfig = ReturnType<typeof loadAuthConfig>;

export function loadAuthConfig(env: NodeJS.ProcessEnv = process.env) {
  const config = loadConfig(authEnvShape, env);
  if (config.NODE_ENV === 'production' && !config.AUTH_ENCRYPTION_KEY) {
    throw new Error('Invalid configuration: AUTH_ENCRYPTION_KEY is required in production');
  }
  return config;
}
