import { startPrivateRedis, testDatabaseUrl, uniqueName } from '@platform/testing';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import readline from 'node:readline';

const ROOT = path.resolve(__dirname, '../../..');

export interface BootedPlatform {
  urls: Record<string, string>;
  admin: { username: string; password: string };
  logs: string[];
  stop(): Promise<void>;
}

interface ReadyMessage {
  type: 'ready';
  urls: Record<string, string>;
  admin: { username: string; password: string };
  services: Array<{ name: string; ok: boolean; reason?: string; tail?: string[] }>;
  keyError?: string;
}

/**
 * The whole platform as `npm run up -- --ports=free` boots it, in a database of its own
 * (`<test database>_<suffix>`, each service migrating its schema on start) and a private Redis.
 */
export async function bootPlatform(suffix: string, env: Record<string, string> = {}): Promise<BootedPlatform> {
  const redis = await startPrivateRedis();
  const database = new URL(testDatabaseUrl);
  database.pathname = `${database.pathname.replace(/\/$/, '') || '/platform'}_${suffix}`;
  const childEnv: Record<string, string> = { ...(process.env as Record<string, string>) };
  for (const name of Object.keys(childEnv)) if (/_API_KEY$|_DATABASE_URL$|^GATEWAY_REPLY_SECRET$|^TRACING_INGEST_KEYS$/.test(name)) delete childEnv[name];
  Object.assign(childEnv, {
    NODE_ENV: 'test',
    NO_COLOR: '1',
    LOG_LEVEL: 'warn',
    DATABASE_URL: database.toString(),
    REDIS_URL: redis.url,
    MIGRATE_ON_START: 'true',
    PLATFORM_READY_TIMEOUT_MS: '300000',
    AUTH_ADMIN_USERNAME: uniqueName('admin'),
    AUTH_ADMIN_PASSWORD: randomBytes(16).toString('hex'),
    TRACING_INGEST_KEY: randomBytes(24).toString('hex'),
    OTEL_SDK_DISABLED: 'true',
    WORKFLOW_ENGINE_RECOVER_ON_START: 'false',
    ...env,
  });
  const child = spawn(process.execPath, [path.join(ROOT, 'tools/scripts/up.mjs'), '--ports=free', '--skip-setup'], {
    cwd: ROOT,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  const logs: string[] = [];
  for (const stream of [child.stdout!, child.stderr!]) readline.createInterface({ input: stream }).on('line', (line) => logs.push(line) > 5000 && logs.shift());
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      await exited;
      clearTimeout(timer);
    }
    await redis.stop();
  };
  try {
    const ready = await new Promise<ReadyMessage>((resolve, reject) => {
      child.on('message', (message: ReadyMessage) => message?.type === 'ready' && resolve(message));
      child.once('exit', (code, signal) => reject(new Error(`the platform exited (${signal ?? code}) before it was up`)));
    });
    const failed = ready.services.filter((service) => !service.ok);
    if (failed.length) throw new Error(failed.map((service) => `${service.name}: ${service.reason}\n${(service.tail ?? []).join('\n')}`).join('\n'));
    if (ready.keyError) throw new Error(ready.keyError);
    return { urls: ready.urls, admin: ready.admin, logs, stop };
  } catch (error) {
    await stop();
    throw new Error(`${(error as Error).message}\n--- last lines ---\n${logs.slice(-40).join('\n')}`);
  }
}
