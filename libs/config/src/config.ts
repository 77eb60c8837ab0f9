import { z } from 'zod';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Env variables every service reads; a service extends this object with its own. */
export const baseEnvShape = {
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: z.string().url().default('postgresql://postgres@127.0.0.1:5432/platform'),
  REDIS_URL: z.string().url().default('redis://127.0.0.1:6379'),
  AUTH_URL: z.string().url().default('http://127.0.0.1:3001'),
  AUTH_ISSUER: z.string().optional(),
  AUTH_AUDIENCE: z.string().default('agent-platform'),
  MIGRATE_ON_START: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true'),
  SERVICE_ROLE: z.enum(['all', 'api', 'worker']).default('all'),
  BODY_LIMIT: z.string().default('1mb'),
  /**
   * Which proxies' X-Forwarded-For to believe (Express `trust proxy`): `loopback` (default), a list
   * of addresses or CIDRs, a hop count, `true` or `false`.
   */
  TRUST_PROXY: z
    .string()
    .default('loopback')
    .transform((value): boolean | number | string => (value === 'true' ? true : value === 'false' ? false : /^\d+$/.test(value) ? Number(value) : value)),
  /** Longest a single SQL statement may run before Postgres cancels it (a stuck database answers 503, never hangs). */
  DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().positive().default(15_000),
  /** Outbound calls to user-supplied URLs may reach private, loopback and link-local addresses. */
  OUTBOUND_ALLOW_PRIVATE: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
  DATABASE_POOL_SIZE: z.coerce.number().int().positive().max(200).default(10),
};

export type BaseConfig = z.output<z.ZodObject<typeof baseEnvShape>>;

/**
 * Parses the environment once into a frozen, typed object. A bad value stops start-up with a
 * message naming the variable. `<NAME>_FILE` variants are read for secrets mounted as files.
 */
export function loadConfig<T extends z.ZodRawShape>(shape: T, env: NodeJS.ProcessEnv = process.env): Readonly<z.infer<z.ZodObject<T>>> {
  const resolved: Record<string, string | undefined> = { ...env };
  for (const name of Object.keys(shape)) {
    const file = env[`${name}_FILE`];
    if (resolved[name] === undefined && file) {
      resolved[name] = require('node:fs').readFileSync(file, 'utf8').trim();
    }
  }
  const result = z.object(shape).safeParse(resolved);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`);
  }
  return Object.freeze(result.data);
}

/** The service's database URL: `<SERVICE>_DATABASE_URL` when set, else the shared one. */
export function serviceDatabaseUrl(service: string, fallback: string, env: NodeJS.ProcessEnv = process.env): string {
  return env[`${service.toUpperCase().replace(/-/g, '_')}_DATABASE_URL`] ?? fallback;
}

/**
 * The environment with `--role <all|api|worker>` from the command line applied over SERVICE_ROLE:
 * the same image runs as API, worker or both (DESIGN.md, Queues).
 */
export function environmentWithRole(argv: readonly string[] = process.argv, env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const index = argv.indexOf('--role');
  return index >= 0 && argv[index + 1] !== undefined ? { ...env, SERVICE_ROLE: argv[index + 1] } : env;
}

/**
 * Typed env fields for a service's config shape, so no service writes its own coercions:
 * `{ MY_TIMEOUT: env.seconds(30), MY_HOSTS: env.list('a,b'), MY_FLAG: env.bool(false) }`.
 */
export const env = {
  /** A whole number, optionally bounded. */
  int: (fallback: number, bounds: { min?: number; max?: number } = {}) =>
    z.coerce
      .number()
      .int()
      .min(bounds.min ?? Number.MIN_SAFE_INTEGER)
      .max(bounds.max ?? Number.MAX_SAFE_INTEGER)
      .default(fallback),
  /** A positive duration in seconds. */
  seconds: (fallback: number) => z.coerce.number().int().positive().default(fallback),
  /** A positive duration in milliseconds. */
  ms: (fallback: number) => z.coerce.number().int().positive().default(fallback),
  /** A TCP port; 0 lets the system choose (tests). */
  port: (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback),
  /** `true` or `false`. */
  bool: (fallback: boolean) =>
    z
      .enum(['true', 'false'])
      .default(fallback ? 'true' : 'false')
      .transform((value) => value === 'true'),
  /** A comma-separated list; blanks dropped. */
  list: (fallback: string) =>
    z
      .string()
      .default(fallback)
      .transform((value) =>
        value
          .split(',')
          .map((item) => item.trim())
          .filter(Boolean),
      ),
};
