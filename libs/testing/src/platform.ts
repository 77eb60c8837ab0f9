import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import readline from 'node:readline';
import { Client } from 'pg';
import { testDatabaseUrl } from './environment';
import { startPrivateRedis } from './redis-server';

const ROOT = path.resolve(__dirname, '../../..');

export interface BootedPlatform {
  /** Each service's base URL, by name. */
  urls: Record<string, string>;
  admin: { username: string; password: string };
  /** The last lines the services logged (prefixed with their names), for a failing test's message. */
  logs: string[];
  /** Lines of one service's log, as it printed them. */
  logsOf(name: string): string[];
  stop(): Promise<void>;
}

export interface BootOptions {
  /** The run's databases are `<test database>_<suffix>`: a suite of its own, apart from every other. */
  databaseSuffix: string;
  /** Drops that database first, so that the run starts from a fresh install. */
  fresh?: boolean;
  /** Over the defaults below; `undefined` removes a variable. */
  env?: Record<string, string | undefined>;
  timeoutMs?: number;
}

interface ReadyMessage {
  type: 'ready';
  urls: Record<string, string>;
  admin: { username: string; password: string };
  services: Array<{ name: string; ok: boolean; reason?: string; tail?: string[] }>;
  keyError?: string;
}

/**
 * The whole platform as `npm run up -- --ports=free --skip-setup` boots it (tools/scripts/up.mjs):
 * auth first, the services' API keys issued through its admin API, then every other service, each
 * its own process migrating its schema on start, in a database of the run's own and a private Redis
 * (two platforms on one Redis take each other's queued jobs). Resolves once every service is ready;
 * stopping it stops them all, and so does this process going away (the launcher leaves when its IPC
 * channel closes).
 */
export async function bootPlatform(options: BootOptions): Promise<BootedPlatform> {
  const timeoutMs = options.timeoutMs ?? 420_000;
  const [databaseUrl, redis] = await Promise.all([platformDatabase(options.databaseSuffix, options.fresh ?? false), startPrivateRedis()]);
  const env: Record<string, string | undefined> = { ...process.env };
  // The caller's own keys and databases are not the booted platform's: up.mjs issues keys of its own.
  for (const name of Object.keys(env)) if (/_API_KEY$|_DATABASE_URL$|^GATEWAY_REPLY_SECRET$|^TRACING_INGEST_KEYS$/.test(name)) delete env[name];
  Object.assign(env, {
    NODE_ENV: 'test',
    NO_COLOR: '1',
    FORCE_COLOR: undefined,
    LOG_LEVEL: 'warn',
    DATABASE_URL: databaseUrl,
    REDIS_URL: redis.url,
    MIGRATE_ON_START: 'true',
    PLATFORM_READY_TIMEOUT_MS: String(Math.max(60_000, timeoutMs - 60_000)),
    AUTH_ADMIN_USERNAME: `admin-${randomBytes(4).toString('hex')}`,
    AUTH_ADMIN_PASSWORD: randomBytes(16).toString('hex'),
    TRACING_INGEST_KEY: randomBytes(24).toString('hex'),
    OTEL_SDK_DISABLED: 'true',
    WORKFLOW_ENGINE_RECOVER_ON_START: 'false',
    ...options.env,
  });
  const child = spawn(process.execPath, [path.join(ROOT, 'tools/scripts/up.mjs'), '--ports=free', '--skip-setup'], {
    cwd: ROOT,
    env: Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined)) as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  const logs: string[] = [];
  for (const stream of [child.stdout!, child.stderr!])
    readline.createInterface({ input: stream }).on('line', (line) => logs.push(line) > 20_000 && logs.shift());
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      // The launcher stops each service gracefully and kills what is left after 15 s.
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      await exited;
      clearTimeout(timer);
    }
    await redis.stop();
  };

  let ready: ReadyMessage;
  try {
    ready = await new Promise<ReadyMessage>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the platform was not up within ${timeoutMs} ms`)), timeoutMs);
      child.on('message', (message: ReadyMessage) => {
        if (message?.type !== 'ready') return;
        clearTimeout(timer);
        resolve(message);
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`the platform launcher exited (${signal ?? code}) before the platform was up`));
      });
    });
    const failed = ready.services.filter((service) => !service.ok);
    if (failed.length)
      throw new Error(failed.map((service) => `${service.name} did not become ready: ${service.reason}\n${(service.tail ?? []).join('\n')}`).join('\n\n'));
    if (ready.keyError) throw new Error(ready.keyError);
  } catch (error) {
    await stop();
    throw new Error(`${(error as Error).message}\n--- last lines ---\n${logs.slice(-60).join('\n')}`);
  }
  return {
    urls: ready.urls,
    admin: ready.admin,
    logs,
    logsOf: (name) => logs.filter((line) => line.startsWith(`${name.padEnd(14)}│`)),
    stop,
  };
}

async function platformDatabase(suffix: string, fresh: boolean): Promise<string> {
  const url = new URL(testDatabaseUrl);
  const name = `${url.pathname.replace(/^\//, '').replace(/\/$/, '') || 'platform'}_${suffix}`;
  if (fresh) {
    const admin = new URL(url);
    admin.pathname = '/postgres';
    const client = new Client({ connectionString: admin.toString() });
    await client.connect();
    try {
      await client.query(`DROP DATABASE IF EXISTS "${name.replace(/"/g, '""')}" WITH (FORCE)`);
    } finally {
      await client.end();
    }
  }
  url.pathname = `/${name}`;
  return url.toString();
}
