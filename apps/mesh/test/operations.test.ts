import * as grpc from '@grpc/grpc-js';
import { eventually, uniqueName } from '@platform/testing';
import request from 'supertest';
import { protos } from '../src/grpc/proto';
import { bearer, call, meshClient, metadata, startMesh, stopIssuer, subscribe, type MeshInstance } from './harness';

type HealthClient = grpc.Client & {
  Check: (req: { service: string }, cb: (err: grpc.ServiceError | null, res: { status: string }) => void) => void;
  Watch: (req: { service: string }) => grpc.ClientReadableStream<{ status: string }>;
};

/** The standard health client, from grpc-health-check's own proto. */
const healthClient = (port: number) => new (protos().Health)(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as unknown as HealthClient;
const check = (client: HealthClient, service: string) =>
  new Promise<{ status: string }>((resolve, reject) => client.Check({ service }, (e, r) => (e ? reject(e) : resolve(r))));

describe('gRPC: health service, authentication, bad input and connections', () => {
  let mesh: MeshInstance;
  beforeAll(async () => {
    mesh = await startMesh();
  });
  afterAll(async () => {
    await mesh.stop();
    await stopIssuer();
  });

  it('answers grpc.health.v1.Health Check for "" and each service, NOT_FOUND for others', async () => {
    const client = healthClient(mesh.grpcPort);
    try {
      for (const service of ['', 'platform.mesh.v1.Mesh', 'grpc.health.v1.Health']) expect(await check(client, service)).toEqual({ status: 'SERVING' });
      await expect(check(client, 'no.such.Service')).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
    } finally {
      client.close();
    }
  });

  it('refuses calls without a token, with a bad token or without mesh:write, and bad requests', async () => {
    const client = meshClient(mesh.grpcPort);
    try {
      const register = { name: 'x', capabilities: ['c'] };
      await expect(call(client, 'Register', register, new grpc.Metadata())).rejects.toMatchObject({ code: grpc.status.UNAUTHENTICATED });
      const forged = new grpc.Metadata();
      forged.set('authorization', 'Bearer not.a.token');
      await expect(call(client, 'Register', register, forged)).rejects.toMatchObject({ code: grpc.status.UNAUTHENTICATED });
      await expect(call(client, 'Register', register, await metadata(['mesh:read']))).rejects.toMatchObject({ code: grpc.status.PERMISSION_DENIED });
      const md = await metadata(['*']);
      await expect(call(client, 'Register', { name: '' }, md)).rejects.toMatchObject({ code: grpc.status.INVALID_ARGUMENT });
      await expect(call(client, 'Register', { name: 'x', metadata_json: '{oops' }, md)).rejects.toMatchObject({ code: grpc.status.INVALID_ARGUMENT });
      await expect(call(client, 'Send', { to: 'a', capability: 'b', payload_json: '1' }, md)).rejects.toMatchObject({ code: grpc.status.INVALID_ARGUMENT });
      await expect(call(client, 'Send', { to: uniqueName('ghost'), payload_json: '1' }, md)).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
      await expect(call(client, 'Ack', { agent_id: '', id: '' }, md)).rejects.toMatchObject({ code: grpc.status.INVALID_ARGUMENT });
      expect(await call(client, 'Ack', { agent_id: 'a', id: 'unknown' }, md)).toEqual({ acknowledged: false });

      const unknown = subscribe(client, uniqueName('ghost'), md);
      await eventually(() => unknown.ended());
      expect(unknown.ended()).toMatchObject({ code: grpc.status.NOT_FOUND });
      const anonymous = subscribe(client, 'a', new grpc.Metadata());
      await eventually(() => anonymous.ended());
      expect(anonymous.ended()).toMatchObject({ code: grpc.status.UNAUTHENTICATED });
    } finally {
      client.close();
    }
  });

  it('lists and resets gRPC streams, counts connections and runs the garbage collector', async () => {
    const read = await bearer(['mesh:read']);
    const admin = await bearer(['mesh:admin']);
    const client = meshClient(mesh.grpcPort);
    const md = await metadata();
    const { id } = await call<{ id: string }>(client, 'Register', { name: 'streamer' }, md);
    const sub = subscribe(client, id, md);
    const listed = await eventually(async () => {
      const res = await request(mesh.app).get('/api/v1/grpc/connections').set('Authorization', read);
      return res.body.total >= 1 && res.body;
    });
    expect(listed.streams).toContainEqual(expect.objectContaining({ agent_id: id, in_flight: 0, peer: expect.any(String) }));
    // Over the node's own HTTP server, so the connection counts.
    const active = await request(mesh.url).get('/api/v1/connections/active').set('Authorization', read);
    expect(active.body).toMatchObject({ grpc_streams: 1, websocket: 0, draining: false });
    expect(active.body.http).toBeGreaterThanOrEqual(1);

    const reset = await request(mesh.app).post('/api/v1/grpc/connections/reset').set('Authorization', admin);
    expect(reset.body).toEqual({ closed: 1 });
    await eventually(() => sub.ended());
    expect(sub.ended()).toMatchObject({ code: grpc.status.UNAVAILABLE });
    expect((await request(mesh.app).get('/api/v1/grpc/connections').set('Authorization', read)).body.total).toBe(0);

    const gc = await request(mesh.app).post('/api/v1/gc/run').set('Authorization', admin);
    expect(gc.status).toBe(200);
    expect(gc.body.before.heap_used).toBeGreaterThan(0);
    expect(gc.body.freed).toBe(gc.body.before.heap_used - gc.body.after.heap_used);
    client.close();
  });
});

describe('a node that loses Redis', () => {
  it('turns gRPC health and readiness to NOT_SERVING', async () => {
    const mesh = await startMesh();
    const health = healthClient(mesh.grpcPort);
    try {
      expect(await check(health, '')).toEqual({ status: 'SERVING' });
      const write = await bearer(['mesh:write']);
      const agent = await request(mesh.app).post('/api/v1/agents').set('Authorization', write).send({ name: 'cut-off' });
      const client = meshClient(mesh.grpcPort);
      const md = await metadata();
      mesh.infra.redis.disconnect();
      const refused = await request(mesh.app).post('/api/v1/messages').set('Authorization', write).send({ to: agent.body.id, payload: 1 });
      expect(refused.status).toBe(503);
      expect(refused.body.error.message).toMatch(/redis|cache/i);
      await expect(call(client, 'Send', { to: agent.body.id, payload_json: '1' }, md)).rejects.toMatchObject({ code: grpc.status.UNAVAILABLE });
      client.close();
      await eventually(async () => (await check(health, '')).status === 'NOT_SERVING');
      expect(await check(health, 'platform.mesh.v1.Mesh')).toEqual({ status: 'NOT_SERVING' });
      const ready = await request(mesh.app).get('/health/ready');
      expect(ready.status).toBe(503);
      expect(ready.body.dependencies.cache).toBe('down');
    } finally {
      health.close();
      await mesh.stop();
    }
  });
});

describe('draining a node', () => {
  it('refuses new work over REST and gRPC, finishes in-flight work and reports NOT_SERVING', async () => {
    const mesh = await startMesh();
    const health = healthClient(mesh.grpcPort);
    const client = meshClient(mesh.grpcPort);
    try {
      const admin = await bearer(['mesh:admin', 'mesh:read']);
      const write = await bearer(['mesh:write']);
      const md = await metadata();
      const watch = health.Watch({ service: '' });
      const seen: string[] = [];
      watch.on('data', (update: { status: string }) => seen.push(update.status));
      watch.on('error', () => undefined);
      await eventually(() => seen.includes('SERVING'));

      const { id } = await call<{ id: string }>(client, 'Register', { name: 'busy' }, md);
      const sub = subscribe(client, id, md);
      sub.stream.on('data', (d: { id: string }) => setTimeout(() => void call(client, 'Ack', { agent_id: id, id: d.id, ok: true }, md), 200));
      await eventually(async () => (await request(mesh.app).get('/api/v1/grpc/connections').set('Authorization', admin)).body.total === 1);
      const sent = await request(mesh.app).post('/api/v1/messages').set('Authorization', write).send({ to: id, payload: 'in flight' });
      await eventually(() => sub.received.length === 1);

      const drained = await request(mesh.app).post('/api/v1/drain').set('Authorization', admin);
      expect(drained.status).toBe(200);
      expect(drained.body).toMatchObject({ draining: true, in_flight: 1 });
      // The in-flight message finished before the drain answered.
      const stored = await request(mesh.app).get(`/api/v1/messages?agent_id=${id}`).set('Authorization', admin);
      expect(stored.body.messages).toEqual([expect.objectContaining({ id: sent.body.id, state: 'acked' })]);

      const refused = await request(mesh.app).post('/api/v1/messages').set('Authorization', write).send({ to: id, payload: 'late' });
      expect(refused.status).toBe(503);
      expect(refused.body.error).toMatchObject({ code: 'service_unavailable', details: { reason: 'draining' } });
      expect((await request(mesh.app).post('/api/v1/agents').set('Authorization', write).send({ name: 'late' })).status).toBe(503);
      await expect(call(client, 'Send', { to: id, payload_json: '1' }, md)).rejects.toMatchObject({ code: grpc.status.UNAVAILABLE });
      await expect(call(client, 'Register', { name: 'late' }, md)).rejects.toMatchObject({ code: grpc.status.UNAVAILABLE });

      expect(await check(health, '')).toEqual({ status: 'NOT_SERVING' });
      expect(await check(health, 'platform.mesh.v1.Mesh')).toEqual({ status: 'NOT_SERVING' });
      await eventually(() => seen.includes('NOT_SERVING'));
      expect((await request(mesh.app).get('/health/ready')).status).toBe(503);
      expect((await request(mesh.app).get('/api/v1/health')).body).toMatchObject({ status: 'unhealthy', draining: true });
      expect((await request(mesh.app).get('/api/v1/connections/active').set('Authorization', admin)).body.draining).toBe(true);
      watch.cancel();
    } finally {
      client.close();
      health.close();
      await mesh.stop();
      await stopIssuer();
    }
  });
});
