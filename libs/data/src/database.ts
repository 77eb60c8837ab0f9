import { PrismaPg } from '@prisma/adapter-pg';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { Client, Pool, type PoolConfig } from 'pg';
import { DependencyUnavailableError } from './redis';

const START_POSTGRES = 'pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start';

export interface PoolOptions {
  poolSize?: number;
  /** Postgres cancels a statement that runs longer (ms). */
  statementTimeoutMs?: number;
  /** A request waiting this long for a free connection fails instead of hanging (ms). */
  acquireTimeoutMs?: number;
  /** More session settings of every connection (`-c name=value`), for example planner settings. */
  settings?: Record<string, string>;
}

/**
 * The driver adapter for a service's generated Prisma client, bound to the service's own schema:
 * model queries are qualified by the adapter, and raw SQL resolves through the search path. Every
 * statement has a timeout and the pool an acquire timeout, so a stuck database fails a request
 * instead of holding it.
 */
export function prismaAdapter(databaseUrl: string, schema: string, options: PoolOptions | number = {}): PrismaPg {
  return new PrismaPg(poolConfig(databaseUrl, schema, typeof options === 'number' ? { poolSize: options } : options), { schema });
}

/**
 * A plain pg pool bound like the Prisma adapter's (the service's schema first on the search path,
 * the same statement and acquire timeouts), for the few hot paths where a Prisma raw query costs
 * several times the CPU of the statement itself. A lost idle connection is reported, never thrown.
 */
export function sqlPool(databaseUrl: string, schema: string, options: PoolOptions & { onError?: (error: Error) => void } = {}): Pool {
  const pool = new Pool(poolConfig(databaseUrl, schema, options));
  pool.on('error', options.onError ?? (() => undefined));
  return pool;
}

function poolConfig(databaseUrl: string, schema: string, options: PoolOptions): PoolConfig {
  const { poolSize = 10, statementTimeoutMs = 15_000, acquireTimeoutMs = 5_000, settings = {} } = options;
  const extra = Object.entries(settings).map(([name, value]) => ` -c ${name}=${value}`);
  return {
    connectionString: databaseUrl,
    max: poolSize,
    connectionTimeoutMillis: acquireTimeoutMs,
    options: `-c search_path="${schema}" -c statement_timeout=${statementTimeoutMs}${extra.join('')}`,
  };
}

/** A readiness probe for a Prisma client: `SELECT 1`. */
export const postgresCheck = (db: { $queryRawUnsafe: (sql: string) => Promise<unknown> }) => () => db.$queryRawUnsafe('SELECT 1');

/** A readiness probe for Redis: `PING`. */
export const redisCheck = (redis: { ping: () => Promise<unknown> }) => () => redis.ping();

async function connect(url: string): Promise<Client> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    return client;
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === '3D000') throw error; // database missing: the caller creates it
    throw new DependencyUnavailableError(
      `PostgreSQL is not reachable at ${new URL(url).host} (${code ?? (error as Error).message}). Start it with: ${START_POSTGRES}`,
    );
  }
}

/** Creates the database named in the URL and the service's schema when they are missing. */
export async function ensureDatabase(databaseUrl: string, schema: string): Promise<void> {
  let client: Client;
  try {
    client = await connect(databaseUrl);
  } catch (error) {
    if ((error as { code?: string }).code !== '3D000') throw error;
    const url = new URL(databaseUrl);
    const name = decodeURIComponent(url.pathname.slice(1));
    url.pathname = '/postgres';
    const admin = await connect(url.toString());
    try {
      await admin.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
    } catch (createError) {
      // Created meanwhile by another service: 42P04, or 23505 when both inserts race in the catalog.
      if (!['42P04', '23505'].includes((createError as { code?: string }).code ?? '')) throw createError;
    } finally {
      await admin.end();
    }
    client = await connect(databaseUrl);
  }
  try {
    await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema.replace(/"/g, '""')}"`);
  } catch (error) {
    if ((error as { code?: string }).code !== '23505') throw error; // two services racing
  } finally {
    await client.end();
  }
}

/**
 * Applies the service's Prisma migrations (`prisma/<service>/migrations`) with `prisma migrate
 * deploy`, which takes an advisory lock so replicas starting together apply each migration once.
 * That lock is per database, shared by every service, so a wait that times out (P1002) is retried.
 */
export async function migrateDatabase(service: string, databaseUrl: string, prismaRoot = path.join(process.cwd(), 'prisma'), attempts = 5): Promise<void> {
  await ensureDatabase(databaseUrl, service);
  // Spawning the CLI costs seconds of CPU; most starts find every migration already applied.
  if (await migrationsApplied(service, databaseUrl, path.join(prismaRoot, service, 'migrations'))) return;
  for (let attempt = 1; ; attempt++) {
    const { code, output } = await runMigrateDeploy(service, databaseUrl, prismaRoot);
    if (code === 0) return;
    if (!output.includes('P1002') || attempt >= attempts) throw new Error(`Migrations of ${service} failed:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 1000 * attempt));
  }
}

/**
 * True when the schema's migration history holds exactly the local migrations, each finished and
 * with the checksum Prisma records (SHA-256 of its `migration.sql`). Anything else (a new, changed,
 * failed or unknown migration, or no history yet) is left to `prisma migrate deploy` to apply or
 * to report.
 */
async function migrationsApplied(service: string, databaseUrl: string, migrationsDir: string): Promise<boolean> {
  const local = new Map<string, string>();
  const entries = await readdir(migrationsDir, { withFileTypes: true }).catch(() => []); // none: the CLI reports it
  for (const entry of entries) {
    if (!entry.isDirectory()) continue;
    const script = await readFile(path.join(migrationsDir, entry.name, 'migration.sql')).catch(() => undefined);
    if (script) local.set(entry.name, createHash('sha256').update(script).digest('hex'));
  }
  const client = await connect(databaseUrl);
  try {
    const { rows } = await client.query<{ migration_name: string; checksum: string; finished: boolean; rolled_back: boolean }>(
      `SELECT migration_name, checksum, finished_at IS NOT NULL AS finished, rolled_back_at IS NOT NULL AS rolled_back
         FROM "${service.replace(/"/g, '""')}"._prisma_migrations`,
    );
    const applied = rows.filter((row) => !row.rolled_back);
    return applied.length === local.size && applied.every((row) => row.finished && local.get(row.migration_name) === row.checksum);
  } catch (error) {
    if ((error as { code?: string }).code === '42P01') return false; // no history table yet
    throw error;
  } finally {
    await client.end();
  }
}

const MIGRATED = /All migrations have been successfully applied|No pending migrations to apply/;

async function runMigrateDeploy(service: string, databaseUrl: string, prismaRoot: string): Promise<{ code: number | null; output: string }> {
  const config = path.join(prismaRoot, service, 'prisma.config.ts');
  const bin = require.resolve('prisma/build/index.js');
  const output: Buffer[] = [];
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'migrate', 'deploy', '--config', config], {
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl,
        [`${service.toUpperCase().replace(/-/g, '_')}_DATABASE_URL`]: databaseUrl,
        PRISMA_HIDE_UPDATE_MESSAGE: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (chunk: Buffer) => {
      output.push(chunk);
      // The schema engine keeps the CLI alive ~10 s after it is done; success is final once printed.
      if (MIGRATED.test(Buffer.concat(output).toString())) {
        child.kill('SIGTERM');
        resolve(0);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => output.push(chunk));
    child.on('error', reject);
    child.on('exit', resolve);
  });
  return { code, output: Buffer.concat(output).toString() };
}
