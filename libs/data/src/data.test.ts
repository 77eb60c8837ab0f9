import { eventually, testDatabaseUrl, testRedisUrl } from '@platform/testing';
import { bullmqConnection, bullmqRetryDelay, closeRedis, createRedis, ensureDatabase, prismaAdapter, waitForRedis } from './index';

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
