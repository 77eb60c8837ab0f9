import { cuttableProxy, eventually, runServiceProcess, testDatabaseUrl, type CuttableProxy } from '@platform/testing';
import { startHarness, type Harness } from './fixtures';

describe('mcp-registry with Postgres going down and coming back', () => {
  let proxy: CuttableProxy;
  let h: Harness;
  beforeAll(async () => {
    proxy = await cuttableProxy(testDatabaseUrl, 5432);
    h = await startHarness({ DATABASE_URL: proxy.url });
  }, 120_000);
  afterAll(async () => {
    await proxy.restore().catch(() => undefined);
    await h.stop();
    await proxy.close();
  });

  it('answers /health and its data endpoints with 503 naming Postgres, never 500, then recovers', async () => {
    expect((await fetch(`${h.url}/connections`, { headers: { authorization: h.reader } })).status).toBe(200);
    await proxy.cut();
    const list = await fetch(`${h.url}/connections`, { headers: { authorization: h.reader } });
    expect(list.status).toBe(503);
    expect(await list.json()).toMatchObject({ error: { code: expect.any(String), message: expect.stringMatching(/postgres/i) } });
    const health = await fetch(`${h.url}/health`);
    expect(health.status).toBe(503);
    expect(JSON.stringify(await health.json())).toMatch(/postgres/i);
    await proxy.restore();
    await eventually(async () => (await fetch(`${h.url}/connections`, { headers: { authorization: h.reader } })).status === 200, 30_000, 200);
  }, 90_000);
});

describe('mcp-registry rate limit', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ MCP_RATE_LIMIT: '3', MCP_RATE_LIMIT_BURST: '5' });
  }, 120_000);
  afterAll(() => h.stop());

  it('admits exactly the burst it announces, counting Remaining down, then 429 with Retry-After', async () => {
    const statuses: number[] = [];
    const remaining: string[] = [];
    for (let i = 0; i < 6; i++) {
      const response = await fetch(`${h.url}/connections`, { headers: { authorization: h.reader } });
      statuses.push(response.status);
      remaining.push(response.headers.get('x-ratelimit-remaining') ?? '');
      if (i === 0) expect(response.headers.get('x-ratelimit-limit')).toBe('5');
      if (i === 5) expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    expect(remaining.slice(0, 5)).toEqual(['4', '3', '2', '1', '0']);
  });
});

describe('mcp-registry start-up with Redis down', () => {
  it('says so in one line naming the URL it used, and exits non-zero', async () => {
    const run = await runServiceProcess('apps/mcp-registry/src/main.ts', {
      LOG_LEVEL: 'silent',
      MIGRATE_ON_START: 'false',
      DATABASE_URL: testDatabaseUrl,
      REDIS_URL: 'redis://127.0.0.1:1/0',
    });
    expect(run.code).not.toBe(0);
    const lines = run.stderr.split('\n').filter((line) => line.trim() !== '');
    expect(lines).toEqual([expect.stringMatching(/^mcp-registry failed to start: .*Redis is not reachable at redis:\/\/127\.0\.0\.1:1\/0/)]);
  }, 90_000);
});
