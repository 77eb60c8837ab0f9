import request from 'supertest';
import { startHarness, startReplica, stdioEverything, type Harness } from './fixtures';

/**
 * `SERVICE_ROLE=api` serves the API and starts no program: checks and tool calls go through the
 * queue to a `worker` replica, which holds the sessions and processes.
 */
describe('api and worker roles', () => {
  let api: Harness;
  let worker: Awaited<ReturnType<typeof startReplica>> | undefined;

  beforeAll(async () => {
    api = await startHarness({ SERVICE_ROLE: 'api' });
    worker = await startReplica(api.env, 'worker');
  });
  afterAll(async () => {
    await worker?.stop();
    await api?.stop();
  });

  it('runs a check and a tool call on the worker, and passes its errors back', async () => {
    const created = await request(api.url).post('/connections').set('Authorization', api.admin).send(stdioEverything());
    expect(created.status).toBe(201);
    const id = created.body.id as string;

    const check = await request(api.url).post(`/connections/${id}/health-check`).set('Authorization', api.writer);
    expect(check.status).toBe(200);
    expect(check.body).toMatchObject({ health: { status: 'healthy' }, diagnostics: { processRunning: true } });
    expect(api.context.supervisor.size).toBe(0);
    expect(worker!.supervisor.diagnostics(id).pid).toBe(check.body.diagnostics.pid);

    const call = await request(api.url)
      .post(`/connections/${id}/tools/echo/call`)
      .set('Authorization', api.writer)
      .send({ arguments: { message: 'through the queue' } });
    expect(call.status).toBe(200);
    expect(JSON.stringify(call.body.result.content)).toContain('through the queue');

    const unknown = await request(api.url).post(`/connections/${id}/tools/no-such-tool/call`).set('Authorization', api.writer).send({});
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ type: 'not_found_error', code: 'not_found' });
    const missing = await request(api.url).post('/connections/00000000-0000-4000-8000-000000000000/health-check').set('Authorization', api.writer);
    expect(missing.status).toBe(404);

    const batch = await request(api.url)
      .post('/connections/health-check/batch')
      .set('Authorization', api.writer)
      .send({ connectionIds: [id] });
    expect(batch.body.summary).toEqual({ total: 1, healthy: 1, unhealthy: 0 });

    // Disconnecting through the API replica ends the process on the worker.
    await request(api.url).delete(`/connections/${id}`).set('Authorization', api.admin).expect(200);
    const { eventually } = await import('@platform/testing');
    await eventually(() => worker!.supervisor.size === 0);
  });

  it('serves /health/live and /health/ready on the worker, and no API there', async () => {
    expect((await request(worker!.url).get('/health/live')).status).toBe(200);
    expect((await request(worker!.url).get('/health/ready')).status).toBe(200);
    expect((await request(worker!.url).get('/connections').set('Authorization', api.reader)).status).toBe(404);
  });

  it('leaves no server process behind when the worker shuts down', async () => {
    const created = await request(api.url).post('/connections').set('Authorization', api.admin).send(stdioEverything());
    const check = await request(api.url).post(`/connections/${created.body.id}/health-check`).set('Authorization', api.writer);
    const pid = check.body.diagnostics.pid as number;
    const { isRunning } = await import('../src/supervisor/process-info');
    expect(isRunning(pid)).toBe(true);
    await worker!.stop();
    worker = undefined;
    expect(isRunning(pid)).toBe(false);
    expect(await api.db.supervisedProcess.count({ where: { pid } })).toBe(0);
  });
});
