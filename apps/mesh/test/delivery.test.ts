import { eventually, uniqueName } from '@platform/testing';
import request from 'supertest';
import { FakeAgent } from './fake-agent';
import { bearer, call, meshClient, metadata, startMesh, stopIssuer, subscribe, type MeshClient, type MeshInstance } from './harness';

describe('delivery, acknowledgements, dead letters and de-duplication', () => {
  let mesh: MeshInstance;
  let client: MeshClient;
  let read: string;
  let write: string;
  let admin: string;
  beforeAll(async () => {
    mesh = await startMesh({ MESH_MAX_DELIVERY_ATTEMPTS: '2' });
    client = meshClient(mesh.grpcPort);
    [read, write, admin] = await Promise.all([bearer(['mesh:read']), bearer(['mesh:write']), bearer(['mesh:admin'])]);
  });
  afterAll(async () => {
    client.close();
    await mesh.stop();
    await stopIssuer();
  });

  const register = async (body: Record<string, unknown>) => {
    const res = await request(mesh.app)
      .post('/api/v1/agents')
      .set('Authorization', write)
      .send({ name: 'agent', ...body });
    expect(res.status).toBe(201);
    return res.body as { id: string };
  };
  const send = (body: Record<string, unknown>) => request(mesh.app).post('/api/v1/messages').set('Authorization', write).send(body);
  const message = async (id: string, agentId: string) =>
    (
      (await request(mesh.app).get(`/api/v1/messages?agent_id=${agentId}&limit=500`).set('Authorization', read)).body.messages as Array<Record<string, unknown>>
    ).find((m) => m.id === id);

  it('redelivers to the next stream what a dropped subscriber never acknowledged', async () => {
    const md = await metadata();
    const { id: agentId } = await register({ id: uniqueName('drop') });
    const first = subscribe(client, agentId, md);
    await eventually(async () =>
      (await request(mesh.app).get('/api/v1/grpc/connections').set('Authorization', read)).body.streams.some(
        (s: { agent_id: string }) => s.agent_id === agentId,
      ),
    );
    const sent = await send({ to: agentId, payload: { n: 1 } });
    expect(sent.status).toBe(202);
    await eventually(() => first.received.find((d) => d.id === sent.body.id));
    first.stream.cancel();

    const second = subscribe(client, agentId, md);
    const again = await eventually(() => second.received.find((d) => d.id === sent.body.id), 15_000);
    expect(again.attempt).toBe(2);
    expect(JSON.parse(again.payload_json)).toEqual({ n: 1 });
    expect(await call(client, 'Ack', { agent_id: agentId, id: again.id, ok: true }, md)).toEqual({ acknowledged: true });
    await eventually(async () => (await message(sent.body.id, agentId))?.state === 'acked');
    second.stream.cancel();
  });

  it('keeps a message for an agent with no subscriber until one arrives, and expires it past its TTL', async () => {
    const md = await metadata();
    const { id: agentId } = await register({ id: uniqueName('late') });
    const waiting = await send({ to: agentId, payload: 'later' });
    const expiring = await send({ to: agentId, payload: 'too late', ttl_ms: 1000 });
    await eventually(async () => (await message(expiring.body.id, agentId))?.state === 'expired', 15_000);
    const sub = subscribe(client, agentId, md);
    const delivery = await eventually(() => sub.received.find((d) => d.id === waiting.body.id));
    await call(client, 'Ack', { agent_id: agentId, id: delivery.id, ok: true }, md);
    await eventually(async () => (await message(waiting.body.id, agentId))?.state === 'acked');
    expect(sub.received.map((d) => d.id)).not.toContain(expiring.body.id);
    const failed = await request(mesh.app).get(`/api/v1/messages/failed?agent_id=${agentId}`).set('Authorization', read);
    expect(failed.body.messages).toEqual([expect.objectContaining({ id: expiring.body.id, state: 'expired', dead_reason: 'ttl_expired' })]);
    sub.stream.cancel();
  });

  it('retries an HTTP agent with backoff, dead-letters it with the reason, and delivers it once retried from the DLQ', async () => {
    const agent = await new FakeAgent().start();
    try {
      agent.status = 500;
      const { id: agentId } = await register({ id: uniqueName('http'), endpoint: `${agent.url}/inbox` });
      const sent = await send({ to: agentId, payload: { order: 7 } });
      await eventually(async () => (await message(sent.body.id, agentId))?.state === 'dead', 15_000);
      const dlq = await request(mesh.app).get(`/api/v1/queues/dlq?agent_id=${agentId}`).set('Authorization', read);
      expect(dlq.status).toBe(200);
      expect(dlq.body.messages).toEqual([
        expect.objectContaining({ id: sent.body.id, state: 'dead', attempts: 2, dead_reason: 'agent endpoint answered HTTP 500' }),
      ]);

      agent.status = 200;
      const retried = await request(mesh.app)
        .post('/api/v1/queues/dlq/retry')
        .set('Authorization', admin)
        .send({ ids: [sent.body.id] });
      expect(retried.status).toBe(200);
      expect(retried.body).toEqual({ retried: 1, ids: [sent.body.id] });
      await eventually(async () => (await message(sent.body.id, agentId))?.state === 'acked', 15_000);
      expect(agent.received).toEqual([expect.objectContaining({ id: sent.body.id, payload: { order: 7 }, attempt: 1 })]);
      expect((await request(mesh.app).get(`/api/v1/queues/dlq?agent_id=${agentId}`).set('Authorization', read)).body.total).toBe(0);
    } finally {
      await agent.stop();
    }
  });

  it('dead-letters a message the gRPC agent keeps rejecting', async () => {
    const md = await metadata();
    const { id: agentId } = await register({ id: uniqueName('nack') });
    const sub = subscribe(client, agentId, md);
    sub.stream.on('data', (d: { id: string }) => void call(client, 'Ack', { agent_id: agentId, id: d.id, ok: false, error: 'cannot parse' }, md));
    const sent = await send({ to: agentId, payload: 'bad' });
    const dead = await eventually(async () => {
      const row = await message(sent.body.id, agentId);
      return row?.state === 'dead' && row;
    }, 15_000);
    expect(dead).toMatchObject({ attempts: 2, dead_reason: 'rejected by the agent: cannot parse' });
    sub.stream.cancel();
  });

  it('accepts a message id once inside the de-duplication window', async () => {
    const md = await metadata();
    const { id: agentId } = await register({ id: uniqueName('dedupe') });
    const sub = subscribe(client, agentId, md);
    sub.stream.on('data', (d: { id: string }) => void call(client, 'Ack', { agent_id: agentId, id: d.id, ok: true }, md));
    const messageId = uniqueName('msg');
    const first = await send({ to: agentId, message_id: messageId, payload: 1 });
    const second = await send({ to: agentId, message_id: messageId, payload: 2 });
    expect(first.status).toBe(202);
    expect(second.status).toBe(202);
    expect(second.body).toEqual({ ...first.body, duplicate: true, state: expect.any(String) });
    expect(first.body.duplicate).toBe(false);
    await eventually(async () => (await message(first.body.id, agentId))?.state === 'acked');
    const stored = await request(mesh.app).get(`/api/v1/messages?message_id=${messageId}`).set('Authorization', read);
    expect(stored.body.total).toBe(1);
    expect(sub.received.filter((d) => d.message_id === messageId)).toHaveLength(1);
    sub.stream.cancel();
  });

  it('removes stored duplicates that arrived outside the window and reports them', async () => {
    const { id: agentId } = await register({ id: uniqueName('dup') });
    const windowed = await startMesh({ MESH_CLUSTER: mesh.cluster, MESH_DEDUPE_WINDOW_MS: '1000' });
    try {
      await request(windowed.app).put('/api/v1/config').set('Authorization', admin).send({ dedupe_window_ms: 1000 });
      const messageId = uniqueName('again');
      const first = await request(windowed.app).post('/api/v1/messages').set('Authorization', write).send({ to: agentId, message_id: messageId, payload: 1 });
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const second = await request(windowed.app).post('/api/v1/messages').set('Authorization', write).send({ to: agentId, message_id: messageId, payload: 2 });
      expect(second.body.duplicate).toBe(false);
      const deduped = await request(mesh.app).post('/api/v1/messages/dedupe').set('Authorization', admin);
      expect(deduped.status).toBe(200);
      expect(deduped.body.duplicates).toContainEqual({ message_id: messageId, kept: first.body.id, removed: [second.body.id] });
      const stored = await request(mesh.app).get(`/api/v1/messages?message_id=${messageId}`).set('Authorization', read);
      expect(stored.body.messages.map((m: { id: string }) => m.id)).toEqual([first.body.id]);
    } finally {
      await request(windowed.app).put('/api/v1/config').set('Authorization', admin).send({ dedupe_window_ms: 120_000 });
      await windowed.stop();
    }
  });

  it('lists, exports as NDJSON, counts, measures depth and purges old finished messages', async () => {
    const { id: agentId } = await register({ id: uniqueName('list') });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await send({ to: agentId, payload: { i } })).body.id);

    const page = await request(mesh.app).get(`/api/v1/messages?agent_id=${agentId}&limit=2`).set('Authorization', read);
    expect(page.body).toMatchObject({ total: 3, limit: 2, offset: 0 });
    expect(page.body.messages).toHaveLength(2);

    const exported = await request(mesh.app).get(`/api/v1/messages/export?agent_id=${agentId}`).set('Authorization', admin);
    expect(exported.status).toBe(200);
    expect(exported.headers['content-type']).toMatch(/^application\/x-ndjson/);
    const lines = exported.text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((line) => line.id).sort()).toEqual([...ids].sort());

    const depth = await request(mesh.app).get('/api/v1/queues/depth').set('Authorization', read);
    expect(depth.body.agents).toContainEqual({ agent_id: agentId, depth: 3 });
    const stats = await request(mesh.app).get('/api/v1/queues/stats').set('Authorization', read);
    expect(stats.status).toBe(200);
    expect(stats.body.messages.queued).toBeGreaterThanOrEqual(3);

    // Two finished long ago: the purge removes those and keeps the rest.
    await mesh.infra.db.message.updateMany({
      where: { id: { in: ids.slice(0, 2) } },
      data: { state: 'acked', updatedAt: new Date(Date.now() - 2 * 3600_000) },
    });
    const purged = await request(mesh.app).delete('/api/v1/queues/purge?older_than=1h').set('Authorization', admin);
    expect(purged.status).toBe(200);
    expect(purged.body.purged).toBeGreaterThanOrEqual(2);
    const left = await request(mesh.app).get(`/api/v1/messages?agent_id=${agentId}`).set('Authorization', read);
    expect(left.body.messages.map((m: { id: string }) => m.id)).toEqual([ids[2]]);
    expect((await request(mesh.app).delete('/api/v1/queues/purge?older_than=soon').set('Authorization', admin)).status).toBe(400);
  });

  it('refuses sends to unknown agents, to capabilities nobody offers, and malformed bodies', async () => {
    expect((await send({ to: uniqueName('ghost'), payload: 1 })).status).toBe(404);
    const none = await send({ capability: uniqueName('nobody'), payload: 1 });
    expect(none.status).toBe(503);
    expect(none.body.error.details).toMatchObject({ reason: 'no_routable_agent' });
    for (const body of [
      { payload: 1 },
      { to: 'a', capability: 'b', payload: 1 },
      { to: 'a' },
      { to: 'a b', payload: 1 },
      { to: 'a', payload: 1, ttl_ms: 5 },
      { to: 'a', payload: 'x'.repeat(300_000) },
      { to: 'a', payload: 1, extra: true },
    ]) {
      const res = await send(body);
      expect([JSON.stringify(body).slice(0, 80), res.status, res.body.error?.code]).toEqual([JSON.stringify(body).slice(0, 80), 400, 'invalid_request']);
    }
  });
});
