import { eventually, testDatabaseUrl, testRedisUrl } from '@platform/testing';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { bullmqConnection, bullmqRetryDelay, closeRedis, createRedis, ensureDatabase, migrateDatabase, prismaAdapter, waitForRedis } from './index';

describe('prismaAdapter', () => {
  it('cancels a statement that runs past the statement timeout instead of hanging', async () => {
    await ensureDatabase(testDatabaseUrl, 'public');
    const driver = await prismaAdapter(testDatabaseUrl, 'public', { statementTimeoutMs: 200, poolSize: 1 }).connect();
    try {
      const started = Date.now();
      await expect(driver.queryRaw({ sql: 'SELECT pg_sleep(5)', args: [], argTypes: [] })).rejects.toThrow(/statement timeout|canceling statement/i);
      expect(Date.now() - started).toBeLessThan(4000);
      const ok = await driver.queryRaw({ sql: 'SELECT 1 AS one', args: [], argTypes: [] });
      expect(ok.rows).toEqual([[1]]);
    } finally {
      await driver.dispose();
    }
  });
});

describe('migrateDatabase', () => {
  // A prisma root with one migration and no CLI configuration: running the CLI fails, so a call
  // that resolves is one that found the history complete and skipped it.
  const schema = 'data_lib_migrate_test';
  const root = mkdtempSync(path.join(tmpdir(), 'migrate-'));
  const script = 'CREATE TABLE example (id int);\n';
  mkdirSync(path.join(root, schema, 'migrations', '0001_init'), { recursive: true });
  writeFileSync(path.join(root, schema, 'migrations', '0001_init', 'migration.sql'), script);
  const checksum = createHash('sha256').update(script).digest('hex');

  async function sql(statement: string, values: unknown[] = []): Promise<void> {
    const client = new Client({ connectionString: testDatabaseUrl });
    await client.connect();
    try {
      await client.query(statement, values);
    } finally {
      await client.end();
    }
  }

  beforeAll(() => sql(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));
  afterAll(() => sql(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));

  it('runs the CLI while the history lacks a migration, and skips it once every migration is applied unchanged', async () => {
    await expect(migrateDatabase(schema, testDatabaseUrl, root, 1)).rejects.toThrow(`Migrations of ${schema} failed`);

    await sql(`CREATE TABLE ${schema}._prisma_migrations (migration_name text, checksum text, finished_at timestamptz, rolled_back_at timestamptz)`);
    await sql(`INSERT INTO ${schema}._prisma_migrations VALUES ('0001_init', $1, NULL, NULL)`, [checksum]);
    await expect(migrateDatabase(schema, testDatabaseUrl, root, 1)).rejects.toThrow('failed'); // unfinished: the CLI reports it

    await sql(`UPDATE ${schema}._prisma_migrations SET finished_at = now()`);
    await expect(migrateDatabase(schema, testDatabaseUrl, root, 1)).resolves.toBeUndefined();

    await sql(`UPDATE ${schema}._prisma_migrations SET checksum = 'edited'`);
    await expect(migrateDatabase(schema, testDatabaseUrl, root, 1)).rejects.toThrow('failed');
  });
});

describe('bullmqConnection', () => {
  it('keeps user, password, database and TLS from the URL', () => {
    expect(bullmqConnection('rediss://worker:s%40cret@cache.internal:6380/4', 'worker')).toEqual({
      host: 'cache.internal',
      port: 6380,
      username: 'worker',
      password: 's@cret',
      db: 4,
      tls: {},
      maxRetriesPerRequest: null,
      retryStrategy: bullmqRetryDelay,
    });
    expect(bullmqConnection('redis://127.0.0.1', 'producer')).toEqual({
      host: '127.0.0.1',
      port: 6379,
      db: 0,
      enableOfflineQueue: false,
      retryStrategy: bullmqRetryDelay,
    });
  });

  it('reconnects at least every second however long Redis was down (BullMQ alone backs off to 20 s)', () => {
    expect([1, 5, 10, 20, 1000].map(bullmqRetryDelay)).toEqual([100, 500, 1000, 1000, 1000]);
  });
});

describe('Redis', () => {
  it('connects, and closes whether or not it is connected', async () => {
    const redis = createRedis(testRedisUrl);
    await waitForRedis(redis, testRedisUrl);
    expect(await redis.ping()).toBe('PONG');
    await closeRedis(redis);
    await eventually(() => redis.status === 'end');
    const never = createRedis('redis://127.0.0.1:1');
    await closeRedis(never);
    await eventually(() => never.status === 'end');
  });
});
