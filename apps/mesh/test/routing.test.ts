import { eventually, uniqueName } from '@platform/testing';
import request from 'supertest';
import { LoadTracker } from '../src/routing/load';
import { RoutingTable } from '../src/routing/routing.table';
import { FakeAgent } from './fake-agent';
import { bearer, meshClient, metadata, startMesh, stopIssuer, subscribe, type MeshInstance } from './harness';

describe('choosing an agent (power of two choices over live load)', () => {
  it('always takes the cheaper of the two candidates it draws', () => {
    const tracker = new LoadTracker();
    tracker.observe('fast', 2);
    tracker.observe('slow', 200);
    const table = new RoutingTable(async () => [], tracker);
    for (let i = 0; i < 100; i++) expect(table.pick(['fast', 'slow'])).toBe('fast');
    // Outstanding requests count too: a fast agent buried in work loses to an idle slower one.
    for (let i = 0; i < 200; i++) tracker.started('fast');
    expect(table.pick(['fast', 'slow'])).toBe('slow');
    expect(table.pick([])).toBeUndefined();
  });

  it('draws two distinct candidates, so every agent can win', () => {
    const tracker = new LoadTracker();
    const sequence = [0.99, 0.99];
    const table = new RoutingTable(
      async () => [],
      tracker,
      () => sequence.shift() ?? 0,
    );
    tracker.observe('c', 1);
    tracker.observe('b', 5);
    // first = index 2 ('c'), second drawn among the other two and shifted past 'c' → 'b'.
    expect(table.pick(['a', 'b', 'c'])).toBe('c');
  });
});

describe('routing through the mesh', () => {
  let mesh: MeshInstance;
  let read: string;
  let write: string;
  let admin: string;
  beforeAll(async () => {
    mesh = await startMesh({ MESH_HEALTH_CHECK_INTERVAL_MS: '100' });
    [read, write, admin] = await Promise.all([bearer(['mesh:read']), bearer(['mesh:write']), bearer(['mesh:admin'])]);
  });
  afterAll(async () => {
    await mesh.stop();
    await stopIssuer();
  });

  it('sends most messages of a capability to the fast agent rather than the slow one', async () => {
    const fast = await new FakeAgent().start();
    const slow = await new FakeAgent().start();
    slow.delayMs = 150;
    try {
      const capability = uniqueName('summarise');
      const ids = { fast: uniqueName('fast'), slow: uniqueName('slow') };
      for (const [name, agent] of [
        ['fast', fast],
        ['slow', slow],
      ] as const) {
        const res = await request(mesh.app)
          .post('/api/v1/agents')
          .set('Authorization', write)
          .send({ id: ids[name], name, capabilities: [capability], endpoint: `${agent.url}/inbox`, check: { type: 'http', target: `${agent.url}/health` } });
        expect(res.status).toBe(201);
      }
      // Both measured by their checks: the slow one's latency shows in the routing table.
      const table = await eventually(async () => {
        const entries = (await request(mesh.app).get('/api/v1/routing/table').set('Authorization', read)).body.capabilities[capability] as Array<{
          agent_id: string;
          latency_ewma_ms: number;
        }>;
        const slowEntry = entries?.find((e) => e.agent_id === ids.slow);
        return slowEntry && slowEntry.latency_ewma_ms > 100 && entries;
      });
      expect(table).toHaveLength(2);

      const chosen: string[] = [];
      for (let i = 0; i < 20; i++) {
        const res = await request(mesh.app).post('/api/v1/messages').set('Authorization', write).send({ capability, payload: { i } });
        expect(res.status).toBe(202);
        chosen.push(res.body.agent_id);
      }
      const toFast = chosen.filter((id) => id === ids.fast).length;
      expect(toFast).toBeGreaterThanOrEqual(16);
      await eventually(() => fast.received.length + slow.received.length === 20, 15_000);
    } finally {
      await fast.stop();
      await slow.stop();
    }
  });

  it('serves the table from its cache until health changes, and clears or rebuilds it on demand', async () => {
    const capability = uniqueName('cache');
    const first = await request(mesh.app).get('/api/v1/routing/table').set('Authorization', read);
    const again = await request(mesh.app).get('/api/v1/routing/table').set('Authorization', read);
    expect(again.body.version).toBe(first.body.version);
    await request(mesh.app)
      .post('/api/v1/agents')
      .set('Authorization', write)
      .send({ id: uniqueName('cached'), name: 'c', capabilities: [capability] });
    const after = await request(mesh.app).get('/api/v1/routing/table').set('Authorization', read);
    expect(after.body.version).toBeGreaterThan(first.body.version);
    expect(after.body.capabilities[capability]).toHaveLength(1);

    const cleared = await request(mesh.app).post('/api/v1/routing/cache/clear').set('Authorization', admin);
    expect(cleared.body).toMatchObject({ cleared: true, version: after.body.version + 1 });
    const rebuilt = await request(mesh.app).post('/api/v1/routing/rebuild').set('Authorization', admin);
    expect(rebuilt.status).toBe(200);
    expect(rebuilt.body.agents).toBeGreaterThanOrEqual(1);

    const discovery = await request(mesh.app).get('/api/v1/discovery/status').set('Authorization', read);
    expect(discovery.body).toMatchObject({ node_id: expect.any(String), health_checks: { health_check_interval_ms: 100 } });
    expect(discovery.body.routing.rebuilds).toBeGreaterThanOrEqual(2);
    expect(discovery.body.capabilities).toBeGreaterThanOrEqual(1);
  });

  it('lists and filters agents, deregisters one, and asks subscribed agents to register again', async () => {
    const capability = uniqueName('list');
    const id = uniqueName('listed');
    await request(mesh.app)
      .post('/api/v1/agents')
      .set('Authorization', write)
      .send({ id, name: 'l', capabilities: [capability], metadata: { version: '1.2.3' } });
    const listed = await request(mesh.app).get(`/api/v1/agents?capability=${capability}`).set('Authorization', read);
    expect(listed.body).toMatchObject({ total: 1, agents: [{ id, metadata: { version: '1.2.3' }, subscribed: false }] });

    const client = meshClient(mesh.grpcPort);
    const sub = subscribe(client, id, await metadata());
    await eventually(async () => (await request(mesh.app).get(`/api/v1/agents?capability=${capability}`).set('Authorization', read)).body.agents[0].subscribed);
    const again = await request(mesh.app)
      .post('/api/v1/agents/reregister')
      .set('Authorization', admin)
      .send({ agent_ids: [id] });
    expect(again.body).toEqual({ reset: 1, notified: 1 });
    await eventually(() => sub.received.some((d) => d.control === 'reregister'));

    expect((await request(mesh.app).delete(`/api/v1/agents/${id}`).set('Authorization', write)).status).toBe(204);
    await eventually(() => sub.ended());
    expect((await request(mesh.app).delete(`/api/v1/agents/${id}`).set('Authorization', write)).status).toBe(404);
    expect((await request(mesh.app).get(`/api/v1/agents?capability=${capability}`).set('Authorization', read)).body.total).toBe(0);
    client.close();

    for (const body of [
      { name: 'x', capabilities: ['bad cap'] },
      { name: 'x', endpoint: 'ftp://host' },
      { name: 'x', check: { type: 'http' } },
      { name: '' },
      { name: 'x', surprise: 1 },
      { name: 'x', check: { type: 'grpc', target: 'nohost' } },
    ]) {
      const res = await request(mesh.app).post('/api/v1/agents').set('Authorization', write).send(body);
      expect([body, res.status]).toEqual([body, 400]);
    }
    expect((await request(mesh.app).get('/api/v1/agents?limit=501').set('Authorization', read)).status).toBe(400);
    expect((await request(mesh.app).get('/api/v1/agents?status=lost').set('Authorization', read)).status).toBe(400);
  });
});
