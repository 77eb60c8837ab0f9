import * as grpc from '@grpc/grpc-js';
import { eventually, uniqueName } from '@platform/testing';
import { HealthImplementation } from 'grpc-health-check';
import request from 'supertest';
import { FakeAgent } from './fake-agent';
import { bearer, call, meshClient, metadata, startMesh, stopIssuer, type MeshInstance } from './harness';

describe('agent health: checks, ejection, readmission, self-reports and history', () => {
  let mesh: MeshInstance;
  let read: string;
  let write: string;
  let admin: string;
  beforeAll(async () => {
    mesh = await startMesh({
      MESH_HEALTH_CHECK_INTERVAL_MS: '100',
      MESH_HEALTH_CHECK_TIMEOUT_MS: '500',
      MESH_EJECTION_FAILURES: '2',
      MESH_READMISSION_PASSES: '2',
    });
    [read, write, admin] = await Promise.all([bearer(['mesh:read']), bearer(['mesh:write']), bearer(['mesh:admin'])]);
  });
  afterAll(async () => {
    await mesh.stop();
    await stopIssuer();
  });

  const agent = async (id: string) =>
    (await request(mesh.app).get(`/api/v1/agents?limit=500&namespace=health`).set('Authorization', read)).body.agents.find((a: { id: string }) => a.id === id);
  const routed = async (capability: string) =>
    ((await request(mesh.app).get('/api/v1/routing/table').set('Authorization', read)).body.capabilities[capability] ?? []).map(
      (e: { agent_id: string }) => e.agent_id,
    );

  it('ejects an agent after N failed HTTP checks and readmits it after M passes', async () => {
    const fake = await new FakeAgent().start();
    try {
      const capability = uniqueName('cap');
      const id = uniqueName('flaky');
      const res = await request(mesh.app)
        .post('/api/v1/agents')
        .set('Authorization', write)
        .send({ id, name: 'flaky', namespace: 'health', capabilities: [capability], check: { type: 'http', target: `${fake.url}/health` } });
      expect(res.status).toBe(201);
      expect(await routed(capability)).toEqual([id]);

      fake.healthStatus = 503;
      const ejected = await eventually(async () => {
        const a = await agent(id);
        return a?.ejected && a;
      });
      expect(ejected).toMatchObject({ status: 'critical', ejected: true });
      expect(ejected.consecutive_failures).toBeGreaterThanOrEqual(2);
      expect(await routed(capability)).toEqual([]);
      expect((await request(mesh.app).post('/api/v1/messages').set('Authorization', write).send({ capability, payload: 1 })).status).toBe(503);

      fake.healthStatus = 200;
      const back = await eventually(async () => {
        const a = await agent(id);
        return a && !a.ejected && a;
      });
      expect(back).toMatchObject({ status: 'passing', ejected: false });
      expect(await routed(capability)).toEqual([id]);

      const history = await request(mesh.app).get(`/api/v1/agents/${id}/health/history?limit=100`).set('Authorization', read);
      expect(history.status).toBe(200);
      const statuses = history.body.checks.map((c: { status: string }) => c.status);
      expect(statuses).toEqual(expect.arrayContaining(['passing', 'critical']));
      expect(history.body.checks[0]).toEqual({
        kind: 'http',
        status: 'passing',
        latency_ms: expect.any(Number),
        output: 'HTTP 200',
        checked_at: expect.any(String),
      });
    } finally {
      await fake.stop();
    }
  });

  it('checks an agent through its own grpc.health.v1 service', async () => {
    const server = new grpc.Server();
    const health = new HealthImplementation({ '': 'SERVING' });
    health.addToServer(server);
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
    );
    try {
      const id = uniqueName('grpc-agent');
      await request(mesh.app)
        .post('/api/v1/agents')
        .set('Authorization', write)
        .send({ id, name: 'g', namespace: 'health', check: { type: 'grpc', target: `127.0.0.1:${port}` } });
      await eventually(async () =>
        (await request(mesh.app).get(`/api/v1/agents/${id}/health/history`).set('Authorization', read)).body.checks?.some(
          (c: { kind: string; output: string }) => c.kind === 'grpc' && c.output === 'SERVING',
        ),
      );
      health.setStatus('', 'NOT_SERVING');
      await eventually(async () => (await agent(id))?.ejected);
    } finally {
      server.forceShutdown();
    }
  });

  it('takes self-reports over REST and heartbeats over gRPC', async () => {
    const id = uniqueName('self');
    await request(mesh.app)
      .post('/api/v1/agents')
      .set('Authorization', write)
      .send({ id, name: 's', namespace: 'health', check: { type: 'ttl', ttl_ms: 60_000 } });
    const warned = await request(mesh.app)
      .put(`/api/v1/agents/${id}/health`)
      .set('Authorization', write)
      .send({ status: 'warning', output: 'queue filling up' });
    expect(warned.status).toBe(200);
    expect(warned.body).toMatchObject({ id, status: 'warning', ejected: false });
    const history = await request(mesh.app).get(`/api/v1/agents/${id}/health/history`).set('Authorization', read);
    expect(history.body.checks).toContainEqual(expect.objectContaining({ kind: 'self', status: 'warning', output: 'queue filling up' }));

    const client = meshClient(mesh.grpcPort);
    try {
      const beat = await call(client, 'Heartbeat', { agent_id: id, status: 'healthy' }, await metadata());
      expect(beat).toEqual({ status: 'passing', ejected: false });
      await expect(call(client, 'Heartbeat', { agent_id: uniqueName('nobody') }, await metadata())).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
    } finally {
      client.close();
    }
    expect((await request(mesh.app).put(`/api/v1/agents/${id}/health`).set('Authorization', write).send({ status: 'great' })).status).toBe(400);
    expect(
      (
        await request(mesh.app)
          .put(`/api/v1/agents/${uniqueName('nobody')}/health`)
          .set('Authorization', write)
          .send({ status: 'healthy' })
      ).status,
    ).toBe(404);
    expect(
      (
        await request(mesh.app)
          .get(`/api/v1/agents/${uniqueName('nobody')}/health/history`)
          .set('Authorization', read)
      ).status,
    ).toBe(404);
  });

  it('lists every agent health, resets them, and counts them', async () => {
    const id = uniqueName('count');
    await request(mesh.app).post('/api/v1/agents').set('Authorization', write).send({ id, name: 'c', namespace: 'health' });
    await request(mesh.app).put(`/api/v1/agents/${id}/health`).set('Authorization', write).send({ status: 'critical' });
    const all = await request(mesh.app).get('/api/v1/health/all?limit=500').set('Authorization', read);
    expect(all.status).toBe(200);
    expect(all.body.total).toBeGreaterThanOrEqual(1);
    const count = await request(mesh.app).get('/api/v1/agents/count').set('Authorization', read);
    expect(count.body.critical).toBeGreaterThanOrEqual(1);
    const reset = await request(mesh.app).post('/api/v1/health/reset').set('Authorization', admin);
    expect(reset.status).toBe(200);
    expect(reset.body.reset).toBeGreaterThanOrEqual(1);
    expect(await agent(id)).toMatchObject({ status: 'passing', ejected: false, consecutive_failures: 0 });
  });

  it('reads and changes the health check interval and timeout, refusing bad values', async () => {
    const before = await request(mesh.app).get('/api/v1/config/health-checks').set('Authorization', read);
    expect(before.body).toEqual({ health_check_interval_ms: 100, health_check_timeout_ms: 500 });
    const changed = await request(mesh.app).put('/api/v1/config/health-checks').set('Authorization', admin).send({ health_check_timeout_ms: 400 });
    expect(changed.body).toEqual({ health_check_interval_ms: 100, health_check_timeout_ms: 400 });
    expect((await request(mesh.app).get('/api/v1/config').set('Authorization', read)).body).toMatchObject({
      health_check_timeout_ms: 400,
      ejection_failures: 2,
    });
    for (const body of [{}, { health_check_interval_ms: 1 }, { health_check_timeout_ms: 'fast' }, { other: 1 }]) {
      expect((await request(mesh.app).put('/api/v1/config/health-checks').set('Authorization', admin).send(body)).status).toBe(400);
    }
    expect((await request(mesh.app).put('/api/v1/config').set('Authorization', admin).send({ max_delivery_attempts: 0 })).status).toBe(400);
    expect((await request(mesh.app).put('/api/v1/config/health-checks').set('Authorization', write).send({ health_check_timeout_ms: 400 })).status).toBe(403);
  });
});

describe('deregistration of an agent critical for too long', () => {
  it('removes the agent and dead-letters what waited for it', async () => {
    const mesh = await startMesh({ MESH_HEALTH_CHECK_INTERVAL_MS: '100', MESH_DEREGISTER_CRITICAL_AFTER_MS: '1000' });
    try {
      const write = await bearer(['mesh:write']);
      const read = await bearer(['mesh:read']);
      const id = uniqueName('silent');
      await request(mesh.app)
        .post('/api/v1/agents')
        .set('Authorization', write)
        .send({ id, name: 'silent', check: { type: 'ttl', ttl_ms: 1000 } });
      const sent = await request(mesh.app).post('/api/v1/messages').set('Authorization', write).send({ to: id, payload: 1 });
      await eventually(async () => (await request(mesh.app).get(`/api/v1/agents/${id}/health/history`).set('Authorization', read)).status === 404, 15_000);
      const dead = await eventually(async () => {
        const res = await request(mesh.app).get(`/api/v1/queues/dlq?agent_id=${id}`).set('Authorization', read);
        return res.body.total === 1 && res.body.messages;
      });
      expect(dead).toEqual([expect.objectContaining({ id: sent.body.id, dead_reason: 'critical_too_long' })]);
    } finally {
      await mesh.stop();
      await stopIssuer();
    }
  });
});
