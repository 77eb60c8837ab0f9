import { uniqueName } from '@platform/testing';
import request from 'supertest';
import { startHarness, stdioEverything, type Harness } from './fixtures';

/** Registration, the list and detail forms, changes and removal; no MCP server needed. */
describe('connections', () => {
  let h: Harness;
  const capability = uniqueName('cap');

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.stop());

  const register = (extra: Record<string, unknown> = {}) =>
    request(h.url)
      .post('/connections')
      .set('Authorization', h.writer)
      .send({
        name: uniqueName('conn'),
        type: 'server',
        protocol: 'http',
        endpoint: { url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'Bearer secret-of-the-server' } },
        capabilities: [capability],
        metadata: { version: '1.0.0', owner: 'team-a', environment: 'test', region: 'eu' },
        healthCheck: { enabled: false, interval: 60, timeout: 2000 },
        ...extra,
      });

  it('registers a connection as active and initializing', async () => {
    const res = await register();
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      name: expect.stringMatching(/^conn-/),
      status: 'active',
      connection: {
        id: res.body.id,
        type: 'server',
        protocol: 'http',
        capabilities: [capability],
        health: { status: 'initializing', lastCheck: null, uptime: 0, errorRate: 0 },
      },
      owner: h.sub,
      team: null,
      createdAt: expect.any(String),
    });
    const detail = await request(h.url).get(`/connections/${res.body.id}`).set('Authorization', h.reader);
    expect(detail.body).toMatchObject({
      metadata: { owner: 'team-a', region: 'eu' },
      healthCheck: { enabled: false, interval: 60, timeout: 2000 },
      endpoint: { url: 'http://127.0.0.1:9/mcp', headers: { Authorization: '[redacted]' } },
      capabilities: [{ name: capability, description: '', schema: {} }],
      metrics: { totalRequests: 0, successRate: 1, averageLatency: 0, p95Latency: 0, errorRate: 0 },
      disconnectedAt: null,
    });
  });

  it('refuses invalid bodies with the zod issues, and a second connection of the same name', async () => {
    const bad = await request(h.url)
      .post('/connections')
      .set('Authorization', h.writer)
      .send({ name: '', protocol: 'carrier-pigeon', endpoint: {}, healthCheck: { interval: 'often' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ type: 'validation_error', code: 'invalid_request' });
    expect(bad.body.error.details.issues.map((issue: { path: string }) => issue.path)).toEqual(
      expect.arrayContaining(['body.name', 'body.protocol', 'body.healthCheck.interval']),
    );
    const noCommand = await request(h.url)
      .post('/connections')
      .set('Authorization', h.admin)
      .send({ ...stdioEverything(), endpoint: { args: [] } });
    expect(noCommand.status).toBe(400);
    const name = uniqueName('twice');
    expect((await register({ name })).status).toBe(201);
    const twice = await register({ name });
    expect(twice.status).toBe(409);
    expect(twice.body.error.type).toBe('conflict_error');
  });

  it('lists with filters, total and filtered', async () => {
    const idle = await register({ type: 'client' });
    await request(h.url).patch(`/connections/${idle.body.id}`).set('Authorization', h.writer).send({ status: 'idle' }).expect(200);
    const byCapability = await request(h.url).get('/connections').query({ capability }).set('Authorization', h.reader);
    expect(byCapability.status).toBe(200);
    expect(byCapability.body.filtered).toBe(byCapability.body.connections.length);
    expect(byCapability.body.filtered).toBeGreaterThanOrEqual(3);
    expect(byCapability.body.total).toBeGreaterThanOrEqual(byCapability.body.filtered);
    expect(byCapability.body.connections[0]).toMatchObject({
      capabilities: [capability],
      metrics: { requestsPerMinute: 0, averageLatency: 0, activeConnections: 0 },
      health: { status: 'initializing' },
    });
    const idleClients = await request(h.url)
      .get('/connections')
      .query({ capability, status: 'idle', type: 'client', protocol: 'http' })
      .set('Authorization', h.reader);
    expect(idleClients.body.connections.map((c: { id: string }) => c.id)).toEqual([idle.body.id]);
    const page = await request(h.url).get('/connections').query({ capability, limit: 1, offset: 1 }).set('Authorization', h.reader);
    expect(page.body.connections).toHaveLength(1);
    const invalid = await request(h.url).get('/connections').query({ status: 'sleeping', limit: 0 }).set('Authorization', h.reader);
    expect(invalid.status).toBe(400);
  });

  it('changes metadata and health-check settings, and refuses an empty or unknown change', async () => {
    const res = await register();
    const patched = await request(h.url)
      .patch(`/connections/${res.body.id}`)
      .set('Authorization', h.writer)
      .send({ metadata: { owner: 'team-b' }, healthCheck: { timeout: 4000 }, capacity: 3 });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      metadata: { owner: 'team-b', region: 'eu', version: '1.0.0' },
      healthCheck: { enabled: false, interval: 60, timeout: 4000 },
      capacity: 3,
    });
    expect((await request(h.url).patch(`/connections/${res.body.id}`).set('Authorization', h.writer).send({})).status).toBe(400);
    expect(
      (
        await request(h.url)
          .patch(`/connections/${res.body.id}`)
          .set('Authorization', h.writer)
          .send({ endpoint: { url: 'http://x' } })
      ).status,
    ).toBe(400);
    expect((await request(h.url).patch(`/connections/${res.body.id}`).set('Authorization', h.reader).send({ status: 'idle' })).status).toBe(403);
  });

  it('disconnects, answers 404 for unknown ids and 400 for malformed ones', async () => {
    const res = await register();
    const del = await request(h.url).delete(`/connections/${res.body.id}`).set('Authorization', h.writer);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ id: res.body.id, status: 'disconnected', message: expect.any(String), disconnectedAt: expect.any(String) });
    const detail = await request(h.url).get(`/connections/${res.body.id}`).set('Authorization', h.reader);
    expect(detail.body).toMatchObject({ status: 'disconnected', disconnectedAt: del.body.disconnectedAt });
    const missing = await request(h.url).get('/connections/00000000-0000-4000-8000-000000000000').set('Authorization', h.reader);
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({ type: 'not_found_error', code: 'not_found' });
    expect((await request(h.url).delete('/connections/not-a-uuid').set('Authorization', h.writer)).status).toBe(400);
    expect((await request(h.url).get('/connections')).status).toBe(401);
  });

  it('exports the registry and imports an export back', async () => {
    const res = await register();
    const exported = await request(h.url).get('/registry/export').set('Authorization', h.reader);
    expect(exported.status).toBe(200);
    expect(exported.body).toMatchObject({ version: '0.2.0', exportedAt: expect.any(String) });
    expect(exported.body.totalExported).toBe(exported.body.connections.length);
    const mine = exported.body.connections.find((c: { name: string }) => c.name === res.body.name);
    expect(mine).toMatchObject({ type: 'server', protocol: 'http', endpoint: { url: 'http://127.0.0.1:9/mcp' }, capabilities: [capability] });

    await request(h.url).delete(`/connections/${res.body.id}`).set('Authorization', h.writer).expect(200);
    const stdio = { ...stdioEverything(), type: 'server' as const, protocol: 'stdio' as const };
    const imported = await request(h.url)
      .post('/registry/import')
      .set('Authorization', h.writer)
      .send({ ...exported.body, connections: [mine, stdio, { ...mine, name: uniqueName('broken'), endpoint: {} }] });
    expect(imported.status).toBe(200);
    expect(imported.body.imported).toEqual([{ id: expect.any(String), name: res.body.name }]);
    expect(imported.body.errors.map((e: { name: string }) => e.name)).toEqual([stdio.name, expect.stringMatching(/^broken-/)]);
    expect(imported.body.errors[0].error).toMatch(/admin/);
    const again = await request(h.url)
      .post('/registry/import')
      .set('Authorization', h.writer)
      .send({ connections: [mine] });
    expect(again.body.skipped).toEqual([{ name: res.body.name, reason: expect.any(String) }]);
    const replaced = await request(h.url)
      .post('/registry/import')
      .set('Authorization', h.writer)
      .send({ connections: [{ ...mine, capabilities: ['other'] }], onConflict: 'replace' });
    expect(replaced.body.updated).toEqual([{ id: imported.body.imported[0].id, name: res.body.name }]);
  });

  it('answers bad input with a 4xx in the error shape, never a 500', async () => {
    const cases: Array<[string, string, unknown, string]> = [
      ['post', '/connections', { name: 'x', protocol: 'http', endpoint: { url: 'not a url' } }, h.writer],
      ['post', '/connections', { name: 'x', protocol: 'http', endpoint: 'http://x' }, h.writer],
      ['post', '/connections', { name: 'x', protocol: 'stdio', endpoint: { command: 'mcp-server-everything', args: 'stdio' } }, h.admin],
      ['post', '/connections', [1, 2, 3], h.writer],
      ['post', '/connections/discover', { capabilities: [1], filters: { minUptime: -1 } }, h.reader],
      ['post', '/connections/health-check/batch', { connectionIds: ['nope'], timeout: 1 }, h.writer],
      ['post', '/connections/health-check/batch', { connectionIds: [] }, h.writer],
      ['post', '/connections/00000000-0000-4000-8000-000000000000/tools/echo/call', { arguments: 'x' }, h.writer],
      ['post', '/registry/import', { connections: [{ name: 'x' }] }, h.writer],
      ['post', '/cms/sync', { cmsEndpoint: 'not a url', apiKey: 'k' }, h.writer],
      ['patch', '/connections/00000000-0000-4000-8000-000000000000', { metadata: 'x' }, h.writer],
      ['get', '/connections?limit=9999&offset=-1', undefined, h.reader],
    ];
    for (const [method, url, body, token] of cases) {
      const client = request(h.url);
      const res = await client[method as 'post'](url)
        .set('Authorization', token)
        .send(body as object);
      expect([url, res.status]).toEqual([url, 400]);
      expect(res.body).toMatchObject({
        error: { type: 'validation_error', code: 'invalid_request', details: { issues: expect.any(Array) } },
        requestId: expect.any(String),
      });
    }
  });
});
