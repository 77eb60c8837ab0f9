import { env } from '@platform/config';
import { ApiRouter } from '@platform/http';
import { defineQueue } from '@platform/queues';
import { createLogger } from '@platform/telemetry';
import { eventually, TestIssuer, testDatabaseUrl, testRedisUrl, uniqueName } from '@platform/testing';
import request from 'supertest';
import { z } from 'zod';
import { defineService, startService } from './bootstrap';
import { Shutdown, ShutdownPriority } from './shutdown';

const logger = createLogger('kit-test', '0.0.0', 'silent');

/** A small service: one route, one queue whose processor records what it ran. */
function pingService(queueName: string, processed: number[]) {
  const jobs = defineQueue(queueName, z.object({ n: z.number() }));
  return defineService({
    name: 'kit-test',
    version: '9.9.9',
    port: 0,
    openapi: { title: 'Kit test' },
    config: { KIT_GREETING: z.string().default('pong'), KIT_LIMIT: env.int(3, { min: 1 }) },
    async build(infra) {
      const producer = infra.queues.producer(jobs);
      const worker = infra.queues.process(jobs, async ({ n }) => {
        processed.push(n);
      });
      const api = new ApiRouter(await infra.verifier()).route({
        method: 'post',
        path: '/ping/:n',
        summary: 'Queue a ping',
        access: { permission: 'kit:write' },
        params: z.object({ n: z.coerce.number().int() }),
        responses: { 202: { description: 'Queued' } },
        handler: async (req) => {
          await producer.add('ping', { n: req.valid.params.n });
          return { greeting: infra.config.KIT_GREETING, limit: infra.config.KIT_LIMIT, worker: worker !== undefined };
        },
      });
      return { routers: [{ basePath: '/api', router: api }], health: { extra: () => ({ role: infra.role }) } };
    },
  });
}

describe('startService', () => {
  const issuer = new TestIssuer();
  beforeAll(() => issuer.start());
  afterAll(() => issuer.stop());
  const start = (definition: ReturnType<typeof pingService>, role: string, extra: Record<string, string> = {}) =>
    startService(definition, {
      env: { REDIS_URL: testRedisUrl, SERVICE_ROLE: role, KIT_GREETING: 'hello', ...extra },
      verifier: issuer.verifier(),
      logger,
      isolated: true,
    });

  it('serves the API and runs the queue processors in the default role', async () => {
    const processed: number[] = [];
    const service = await start(pingService(uniqueName('kit-test.jobs'), processed), 'all');
    try {
      const answer = await request(service.app)
        .post('/api/ping/7')
        .set('Authorization', issuer.bearer(['kit:write']));
      expect(answer.status).toBe(202);
      expect(answer.body).toEqual({ greeting: 'hello', limit: 3, worker: true });
      await eventually(() => processed.includes(7));
      expect((await request(service.app).post('/api/ping/7')).status).toBe(401);
      expect(
        (
          await request(service.app)
            .post('/api/ping/7')
            .set('Authorization', issuer.bearer(['kit:read']))
        ).status,
      ).toBe(403);
      const health = await request(service.app).get('/health');
      expect(health.body).toMatchObject({ status: 'healthy', version: '9.9.9', dependencies: { cache: 'up' }, role: 'all' });
      expect((await request(service.app).get('/openapi.json')).body.paths['/api/ping/{n}']).toBeDefined();
    } finally {
      await service.stop();
    }
  });

  it('serves health and metrics but no API in the worker role, and still processes jobs', async () => {
    const processed: number[] = [];
    const name = uniqueName('kit-test.jobs');
    const api = await start(pingService(name, []), 'api');
    const worker = await start(pingService(name, processed), 'worker');
    try {
      expect((await request(worker.server).get('/health/live')).status).toBe(200);
      expect((await request(worker.server).get('/health/ready')).status).toBe(200);
      expect((await request(worker.server).get('/metrics')).status).toBe(200);
      expect(
        (
          await request(worker.server)
            .post('/api/ping/1')
            .set('Authorization', issuer.bearer(['kit:write']))
        ).status,
      ).toBe(404);
      // The api role queues but does not process; the worker process picks the job up.
      const queued = await request(api.app)
        .post('/api/ping/42')
        .set('Authorization', issuer.bearer(['kit:write']));
      expect(queued.body.worker).toBe(false);
      await eventually(() => processed.includes(42));
    } finally {
      await Promise.all([api.stop(), worker.stop()]);
    }
  });

  it('refuses a bad setting with a message naming the variable, and closes what it opened', async () => {
    await expect(start(pingService(uniqueName('kit-test.jobs'), []), 'all', { KIT_LIMIT: '0' })).rejects.toThrow(/KIT_LIMIT/);
    await expect(start(pingService(uniqueName('kit-test.jobs'), []), 'conductor')).rejects.toThrow(/SERVICE_ROLE/);
  });

  it('says Redis is down in one line naming the URL it used', async () => {
    const error = await startService(pingService(uniqueName('kit-test.jobs'), []), {
      env: { REDIS_URL: 'redis://127.0.0.1:1/0' },
      logger,
      isolated: true,
    }).catch((e: Error) => e);
    expect(String((error as Error).message)).toMatch(/Redis is not reachable at redis:\/\/127\.0\.0\.1:1\/0\. Start it with: redis-server .* --port 1 /);
  });
});

describe('startService with a database', () => {
  // The thinnest client over the real driver adapter: enough for the bootstrap's probe.
  const rawService = defineService({
    name: 'kit_raw',
    version: '1.0.0',
    port: 0,
    openapi: { title: 'Raw' },
    config: {},
    database: (adapter) => {
      const connection = adapter.connect();
      return {
        $queryRawUnsafe: async (sql: string) => (await connection).queryRaw({ sql, args: [], argTypes: [] }),
        $disconnect: async () => (await connection).dispose(),
      };
    },
    build: () => ({}),
  });

  it('probes Postgres on start, reports it in readiness, and says in one line when it is down', async () => {
    const up = await startService(rawService, {
      env: { REDIS_URL: testRedisUrl, DATABASE_URL: testDatabaseUrl, MIGRATE_ON_START: 'false' },
      logger,
      isolated: true,
    });
    try {
      expect((await request(up.app).get('/health/ready')).body.dependencies).toEqual({ cache: 'up', database: 'up' });
    } finally {
      await up.stop();
    }
    const error = await startService(rawService, {
      env: { REDIS_URL: testRedisUrl, DATABASE_URL: 'postgresql://postgres:secret@127.0.0.1:1/none', MIGRATE_ON_START: 'false' },
      logger,
      isolated: true,
    }).catch((e: Error) => e);
    expect((error as Error).name).toBe('DependencyUnavailableError');
    expect((error as Error).message).toBe('PostgreSQL is not reachable at postgresql://postgres:***@127.0.0.1:1/none');
  });
});

describe('Shutdown', () => {
  it('closes by priority, lowest first, and a failing close does not stop the rest', async () => {
    const order: string[] = [];
    const shutdown = new Shutdown(logger);
    shutdown.onShutdown('redis', () => void order.push('redis'), ShutdownPriority.stores);
    shutdown.onShutdown('http', () => void order.push('http'), ShutdownPriority.intake);
    shutdown.onShutdown('broken', () => Promise.reject(new Error('boom')), ShutdownPriority.workers);
    shutdown.onShutdown('worker', () => void order.push('worker'), ShutdownPriority.workers);
    shutdown.onShutdown('buffer', () => void order.push('buffer'));
    await Promise.all([shutdown.run(), shutdown.run()]);
    expect(order).toEqual(['http', 'worker', 'buffer', 'redis']);
  });
});
