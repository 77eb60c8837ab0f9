import { eventually, uniqueName } from '@platform/testing';
import request from 'supertest';
import { startHarness, type Harness } from './fixtures';
import { Gate, startHttpMcpServer, type RunningServer } from './mcp-servers';

/** Discovery, capabilities, load and stats against live connections to a real MCP server. */
describe('discovery and load balancing', () => {
  let h: Harness;
  const tool = uniqueName('lookup');
  const gate = new Gate();
  let server: RunningServer;
  let busy: string;
  let spare: string;
  let down: string;

  const register = async (name: string, url: string, capacity: number) => {
    const res = await request(h.url)
      .post('/connections')
      .set('Authorization', h.writer)
      .send({
        name,
        protocol: 'http',
        endpoint: { url },
        capabilities: [`${tool}-declared`],
        capacity,
        healthCheck: { enabled: false, interval: 30, timeout: 20_000 },
      });
    expect(res.status).toBe(201);
    await request(h.url).post(`/connections/${res.body.id}/health-check`).set('Authorization', h.writer);
    return res.body.id as string;
  };

  beforeAll(async () => {
    [h, server] = await Promise.all([startHarness(), startHttpMcpServer(tool, gate)]);
    busy = await register(uniqueName('a-busy'), server.url, 2);
    spare = await register(uniqueName('b-spare'), server.url, 2);
    down = await register(uniqueName('c-down'), 'http://127.0.0.1:9/mcp', 2);
  });
  afterAll(async () => {
    gate.release();
    await Promise.all([h.stop(), server.close()]);
  });

  const discover = (body: object) => request(h.url).post('/connections/discover').set('Authorization', h.reader).send(body);

  it('finds the connections holding every required capability, leaving out failing ones', async () => {
    const res = await discover({ capabilities: [tool, `${tool}-declared`] });
    expect(res.status).toBe(200);
    expect(res.body.totalMatching).toBe(2);
    expect(res.body.connections.map((c: { id: string }) => c.id).sort()).toEqual([busy, spare].sort());
    expect(res.body.connections[0]).toMatchObject({ health: { status: 'healthy' }, load: 0, endpoint: { url: server.url } });
    const failing = await discover({ capabilities: [`${tool}-declared`], filters: { status: 'error' } });
    expect(failing.body.connections.map((c: { id: string }) => c.id)).toEqual([down]);
    const none = await discover({ capabilities: [tool], filters: { protocol: 'websocket' } });
    expect(none.body.totalMatching).toBe(0);
    const up = await discover({ capabilities: [tool], filters: { minUptime: 0 } });
    expect(up.body.totalMatching).toBe(2);
    const tooYoung = await discover({ capabilities: [tool], filters: { minUptime: 3600 } });
    expect(tooYoung.body.totalMatching).toBe(0);
  });

  it('picks the least-loaded connection from live load and honours maxConnections', async () => {
    const pending = request(h.url)
      .post(`/connections/${busy}/tools/${tool}-gated/call`)
      .set('Authorization', h.writer)
      .send({ timeout: 20_000 })
      .then((res) => res);
    await eventually(() => gate.pending === 1);
    const res = await discover({ capabilities: [tool], loadBalancing: { strategy: 'least-loaded', maxConnections: 1 } });
    expect(res.body).toMatchObject({ totalMatching: 2, loadBalanced: true, strategy: 'least-loaded' });
    expect(res.body.connections).toEqual([expect.objectContaining({ id: spare, load: 0 })]);
    const all = await discover({ capabilities: [tool], loadBalancing: { strategy: 'least-loaded' } });
    expect(all.body.connections.map((c: { id: string; load: number }) => [c.id, c.load])).toEqual([
      [spare, 0],
      [busy, 0.5],
    ]);

    const distribution = await request(h.url).get('/load-balancing/distribution').set('Authorization', h.reader);
    expect(distribution.body.strategy).toBe('least-loaded');
    expect(distribution.body.connections.find((c: { id: string }) => c.id === busy)).toMatchObject({ activeRequests: 1, capacity: 2, load: 0.5 });
    const investigate = distribution.body.recommendations.find((r: { action: string }) => r.action === 'investigate');
    expect(investigate.suggestedConnections).toContain(down);

    gate.release();
    const done = await pending;
    expect(done.body).toMatchObject({ success: true, result: { content: [{ text: 'released' }] } });
    const after = await discover({ capabilities: [tool], loadBalancing: { strategy: 'least-loaded' } });
    expect(after.body.connections.every((c: { load: number }) => c.load === 0)).toBe(true);
  });

  it('summarises capabilities and registry numbers from the recorded calls', async () => {
    const caps = await request(h.url).get('/capabilities').set('Authorization', h.reader);
    expect(caps.status).toBe(200);
    expect(caps.body.capabilities.find((c: { name: string }) => c.name === `${tool}-gated`)).toMatchObject({
      providers: 2,
      totalRequests: 1,
      description: 'Answers when the test lets it',
    });
    expect(caps.body.totalCapabilities).toBe(caps.body.capabilities.length);
    const stats = await request(h.url).get('/registry/stats').set('Authorization', h.reader);
    expect(stats.status).toBe(200);
    expect(stats.body.connections.total).toBeGreaterThanOrEqual(3);
    expect(stats.body.protocols.http).toBeGreaterThanOrEqual(3);
    expect(stats.body.capabilities.mostUsed.length).toBeGreaterThan(0);
    const health = await request(h.url).get('/health');
    expect(health.body).toMatchObject({ status: 'healthy', version: '0.2.0', dependencies: { database: 'up', cache: 'up' } });
    expect(health.body.registry.connections).toBeGreaterThanOrEqual(3);
    expect(health.body.registry.unhealthy).toBeGreaterThanOrEqual(1);
    expect(health.body.performance).toEqual({ requestsPerSecond: expect.any(Number), averageLatency: expect.any(Number) });
  });

  it('refuses a discovery request it cannot read, and readers cannot change anything', async () => {
    const bad = await discover({ capabilities: 'lookup', loadBalancing: { strategy: 'fastest' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues.map((i: { path: string }) => i.path)).toEqual(['body.capabilities', 'body.loadBalancing.strategy']);
    const denied = await request(h.url).post(`/connections/${busy}/health-check`).set('Authorization', h.reader);
    expect(denied.status).toBe(403);
  });
});
