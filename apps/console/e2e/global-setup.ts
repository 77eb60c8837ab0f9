import { startFakeOllama, startPrivateRedis, testDatabaseUrl } from '@platform/testing';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
// eslint-disable-next-line @nx/enforce-module-boundaries -- the platform test's launcher: one way for tests to boot the whole platform
import { startPlatform } from '../../../tools/e2e/test/platform';
import { BUILT_CONSOLE, DATABASE_SUFFIX, OAUTH_PROVIDER, OUTPUT_DIR, ROOT } from './paths';

/** The run's database, dropped first so that every run starts from a fresh install. */
async function freshDatabase(): Promise<string> {
  const url = new URL(testDatabaseUrl);
  const name = `${url.pathname.replace(/^\//, '') || 'platform'}${DATABASE_SUFFIX}`;
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * Boots the whole platform once for the run, as the platform test does, each service its own
 * process, in a database of the run's own and a private Redis; the gateway serves a copy of the
 * built console (others may rebuild dist/apps/console meanwhile). The URLs and the admin reach the
 * tests through the environment; the returned function is the teardown.
 */
export default async function globalSetup(): Promise<() => Promise<void>> {
  if (!existsSync(path.join(BUILT_CONSOLE, 'index.html')))
    throw new Error('dist/apps/console is not built: run `npx nx run console:build` (the console:test target does it first)');
  const consoleDir = path.join(OUTPUT_DIR, 'console');
  rmSync(consoleDir, { recursive: true, force: true });
  mkdirSync(OUTPUT_DIR, { recursive: true });
  cpSync(BUILT_CONSOLE, consoleDir, { recursive: true });

  const [databaseUrl, redis, ollama] = await Promise.all([freshDatabase(), startPrivateRedis(), startFakeOllama()]);
  const admin = { username: 'console-admin', password: randomBytes(16).toString('hex') };
  const env: Record<string, string | undefined> = {
    ...process.env,
    NODE_ENV: 'test',
    NO_COLOR: '1',
    FORCE_COLOR: undefined,
    LOG_LEVEL: 'info',
    DATABASE_URL: databaseUrl,
    REDIS_URL: redis.url,
    MIGRATE_ON_START: 'true',
    PLATFORM_READY_TIMEOUT_MS: '300000',
    AUTH_ADMIN_USERNAME: admin.username,
    AUTH_ADMIN_PASSWORD: admin.password,
    TRACING_INGEST_KEY: randomBytes(24).toString('hex'),
    OTEL_SDK_DISABLED: 'false',
    // local-models serves the fake Ollama's models; mcp-registry may start the MCP reference server.
    OLLAMA_URL: ollama.url,
    MCP_STDIO_ALLOWED_COMMANDS: 'mcp-server-everything',
    MCP_STDIO_PATH: path.join(ROOT, 'node_modules/.bin'),
    WORKFLOW_ENGINE_RECOVER_ON_START: 'false',
    GATEWAY_CONSOLE_DIR: consoleDir,
    // Every test signs in through the page; auth's default (10 a quarter hour per account) is for people.
    AUTH_LOGIN_RATE_LIMIT: '10000',
    // The identity provider the sign-in spec configures at auth (a real OpenID provider it starts).
    GATEWAY_CONSOLE_OAUTH_PROVIDERS: OAUTH_PROVIDER,
  };
  for (const name of Object.keys(env)) if (/_API_KEY$|_DATABASE_URL$|^GATEWAY_REPLY_SECRET$|^TRACING_INGEST_KEYS$/.test(name)) delete env[name];

  let platform;
  try {
    platform = await startPlatform(env, 420_000);
  } catch (error) {
    await Promise.all([redis.stop(), ollama.stop()]);
    throw error;
  }
  process.env.CONSOLE_E2E_URLS = JSON.stringify(platform.urls);
  process.env.CONSOLE_E2E_ADMIN = JSON.stringify(admin);

  return async () => {
    await platform.stop();
    await Promise.all([redis.stop(), ollama.stop()]);
    // The services' logs of the run, for a failure's post-mortem.
    writeFileSync(path.join(OUTPUT_DIR, 'platform.log'), `${platform.logs.join('\n')}\n`);
    console.log(`The platform's log of this run: ${path.relative(ROOT, path.join(OUTPUT_DIR, 'platform.log'))}`);
  };
}
