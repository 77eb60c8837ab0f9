import { cuttableProxy, eventually, TestIssuer, testRedisUrl, uniqueName, type CuttableProxy } from '@platform/testing';
import type { Db } from '../src/database';
import { auth, runEnds, startWorkers, Target, testQueue, type Service } from './harness';

/** Redis that goes silent, or whose connections drop bytes while staying open (issue 27). */
describe('the workers with Redis silent or losing bytes', () => {
  let issuer: TestIssuer;
  let proxy: CuttableProxy;
  let svc: Service;
  let target: Target;

  beforeAll(async () => {
    issuer = await new TestIssuer().start();
    target = await new Target().start();
    proxy = await cuttableProxy(testRedisUrl, 6379);
    svc = await startWorkers(issuer, {
      REDIS_URL: proxy.url,
      WORKERS_QUEUE: `${testQueue}-faults`,
      WORKERS_REDIS_TIMEOUT_MS: '1000',
      WORKERS_REDIS_CHECK_MS: '300',
    });
  });
  afterAll(async () => {
    await proxy?.restore();
    await svc?.stop();
    await proxy?.close();
    await target?.stop();
    await issuer?.stop();
  }, 60_000);

  // A hang fails the test through the abort; an answer must come well before it.
  const start = (name = uniqueName('faults')) =>
    fetch(`${svc.url}/api/v1/workflows`, {
      method: 'POST',
      headers: { authorization: auth(issuer), 'content-type': 'application/json' },
      body: JSON.stringify({ name, steps: [{ id: 'only', type: 'http', url: `${target.url}/ok` }] }),
      signal: AbortSignal.timeout(15_000),
    });
  const expectCacheDown = async () => {
    const name = uniqueName('faults');
    const res = await start(name);
    const body = (await res.json()) as { error: { type: string; message: string; details?: { dependency?: string } } };
    expect([res.status, body.error.type, body.error.details?.dependency]).toEqual([503, 'api_error', 'cache']);
    expect(body.error.message).toMatch(/Redis/);
    // The run it had recorded never starts: it ended failed, saying why.
    const runs = await (svc.infra.db as Db).run.findMany({ where: { name } });
    expect(runs.map((run) => [run.state, run.error])).toEqual([['failed', 'not started: Redis (cache) did not take its first steps']]);
  };
  /** POST /workflows answers 202 again, the run completes (the worker's connections work too), and health is up. */
  const recovered = () =>
    eventually(
      async () => {
        const res = await start();
        if (res.status !== 202) return false;
        const run = (await res.json()) as { workflow_id: string };
        const dag = await runEnds(svc, issuer, run.workflow_id, undefined, 15_000);
        return dag.state === 'completed' && (await fetch(`${svc.url}/health/ready`)).status === 200;
      },
      45_000,
      200,
    );

  it('answers 503 naming the cache while Redis is silent (the probe waited 40 s), and recovers', async () => {
    expect((await start()).status).toBe(202);
    proxy.silence();
    await expectCacheDown();
    await proxy.restore();
    await recovered();
  }, 120_000);

  it('replaces connections that drop bytes but stay open (the probe stayed 503 after Redis came back)', async () => {
    expect((await start()).status).toBe(202);
    proxy.lose();
    await expectCacheDown();
    await proxy.restore();
    await recovered();
  }, 120_000);
});
