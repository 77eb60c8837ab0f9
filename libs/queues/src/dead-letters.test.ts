import { eventually, TestIssuer, testRedisUrl, uniqueName } from '@platform/testing';
import request from 'supertest';
import { z } from 'zod';
import { ApiRouter, createServiceApp } from '@platform/http';
import { deadLetterRoutes } from './dead-letters';
import { createLogger } from '@platform/telemetry';
import { createWorker, defineQueue, TypedQueue } from './queues';

describe('dead letters', () => {
  const issuer = new TestIssuer();
  const definition = defineQueue(uniqueName('kit-test.jobs'), z.object({ n: z.number() }));
  let queue: TypedQueue<typeof definition.payload>;
  let app: ReturnType<typeof createServiceApp>;
  let healthy = false;
  const worker = createWorker(definition, testRedisUrl, async (payload) => {
    if (!healthy) throw new Error(`job ${payload.n} cannot run yet`);
    return payload.n;
  });

  beforeAll(async () => {
    await issuer.start();
    queue = new TypedQueue(definition, testRedisUrl);
    app = createServiceApp({
      name: 'kit-test',
      logger: createLogger('kit-test', '0', 'silent'),
      openapi: { title: 'kit', version: '0' },
      health: { checks: {} },
      routers: [{ basePath: '/api/v1', router: deadLetterRoutes(new ApiRouter(issuer.verifier()), [queue.queue], 'queues:admin') }],
    });
  });
  afterAll(async () => {
    await worker.close();
    await queue.queue.obliterate({ force: true });
    await queue.close();
    await issuer.stop();
  });

  it('lists a job that ran out of retries, and retries it on request', async () => {
    const admin = issuer.bearer(['queues:admin']);
    const job = await queue.add('work', { n: 7 }, { attempts: 2, backoff: { type: 'fixed', delay: 10 } });
    await eventually(async () => (await job.isFailed()) || undefined);

    const listed = await request(app).get(`/api/v1/admin/queues/${definition.name}/failed`).set('Authorization', admin);
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ total: 1, limit: 50, offset: 0 });
    expect(listed.body.jobs[0]).toMatchObject({ id: job.id, name: 'work', attemptsMade: 2, failedReason: 'job 7 cannot run yet', data: { payload: { n: 7 } } });
    const summary = await request(app).get('/api/v1/admin/queues').set('Authorization', admin);
    expect(summary.body.queues).toEqual([{ name: definition.name, counts: expect.objectContaining({ failed: 1 }) }]);

    healthy = true;
    const retried = await request(app).post(`/api/v1/admin/queues/${definition.name}/failed/${job.id}/retry`).set('Authorization', admin);
    expect(retried.status).toBe(202);
    expect(retried.body).toEqual({ id: job.id, queue: definition.name, retried: true });
    await eventually(async () => (await queue.queue.getJob(job.id!))?.isCompleted());
    expect((await request(app).get(`/api/v1/admin/queues/${definition.name}/failed`).set('Authorization', admin)).body.total).toBe(0);
    const again = await request(app).post(`/api/v1/admin/queues/${definition.name}/failed/${job.id}/retry`).set('Authorization', admin);
    expect(again.status).toBe(409);
  });

  it('answers 404 for an unknown queue or job, 403 without the permission', async () => {
    const admin = issuer.bearer(['queues:admin']);
    expect((await request(app).get('/api/v1/admin/queues/nope/failed').set('Authorization', admin)).status).toBe(404);
    expect((await request(app).post(`/api/v1/admin/queues/${definition.name}/failed/424242/retry`).set('Authorization', admin)).status).toBe(404);
    expect(
      (
        await request(app)
          .get('/api/v1/admin/queues')
          .set('Authorization', issuer.bearer(['queues:read']))
      ).status,
    ).toBe(403);
  });
});
