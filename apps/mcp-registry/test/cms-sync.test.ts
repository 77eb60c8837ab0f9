import { FakeCms, uniqueName } from '@platform/testing';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { startHarness, type Harness } from './fixtures';

const BUNDLE = 'mcp_connection';
const SERVER_SECRET = 'Bearer secret-of-the-mcp-server';
const INTERNAL_SECRET = 'internal-only-4f1c9e';

/** Something on an internal address that is no CMS: it answers with a body nobody outside may read. */
async function startInternalService(status: number, contentType = 'application/json') {
  const server = http.createServer((_req, res) => {
    res.writeHead(status, { 'Content-Type': contentType });
    res.end(JSON.stringify({ error: { message: INTERNAL_SECRET }, data: { secret: INTERNAL_SECRET } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/jsonapi/node/${BUNDLE}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('/cms/sync', () => {
  let h: Harness;
  let cms: FakeCms;
  let collection: string;
  const apiKey = 'cms-key-123';
  const fromCms = uniqueName('from-cms');
  const stdioFromCms = uniqueName('stdio-from-cms');
  let local: { id: string; name: string };

  beforeAll(async () => {
    h = await startHarness();
    const res = await request(h.url)
      .post('/connections')
      .set('Authorization', h.writer)
      .send({
        name: uniqueName('local'),
        protocol: 'http',
        endpoint: { url: 'http://127.0.0.1:9/mcp', headers: { Authorization: SERVER_SECRET } },
        capabilities: ['files'],
        healthCheck: { enabled: false, interval: 30, timeout: 1000 },
      });
    local = res.body;
    cms = await new FakeCms({ apiKeys: [apiKey], pageSize: 2 }).start();
    collection = `${cms.url}/jsonapi/node/${BUNDLE}`;
    cms.seed(BUNDLE, {
      name: fromCms,
      connection_type: 'server',
      protocol: 'http',
      endpoint: { url: 'http://127.0.0.1:9/other' },
      capabilities: ['search'],
      health_check: { enabled: false, interval: 30, timeout: 1000 },
    });
    cms.seed(BUNDLE, { name: stdioFromCms, protocol: 'stdio', endpoint: { command: 'mcp-server-everything' } });
    cms.seed(BUNDLE, { name: uniqueName('broken'), protocol: 'http', endpoint: {} });
  });
  afterAll(async () => {
    await Promise.all([h.stop(), cms.stop()]);
  });

  const resources = () => [...cms.nodes.values()];

  it('pulls what the CMS defines and pushes every connection back, over JSON:API', async () => {
    const res = await request(h.url).post('/cms/sync').set('Authorization', h.writer).send({ cmsEndpoint: collection, apiKey, syncMode: 'bidirectional' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ syncMode: 'bidirectional', pulled: { created: 1 }, syncedAt: expect.any(String) });
    // The stdio entry needs an admin; the broken one fails validation: both reported, neither stops the sync.
    expect(res.body.errors.map((e: { name: string }) => e.name)).toEqual([stdioFromCms, expect.stringMatching(/^broken-/)]);
    const pulled = await request(h.url).get('/connections').query({ capability: 'search' }).set('Authorization', h.reader);
    expect(pulled.body.connections.map((c: { name: string }) => c.name)).toContain(fromCms);

    const pushedLocal = resources().find((r) => r.attributes.registry_id === local.id);
    expect(pushedLocal).toMatchObject({ type: `node--${BUNDLE}` });
    expect(pushedLocal?.attributes).toMatchObject({ name: local.name, protocol: 'http', capabilities: ['files'], connection_type: 'server' });
    const linked = resources().find((r) => r.attributes.name === fromCms);
    expect(linked?.attributes.registry_id).toEqual(expect.any(String));
    expect(cms.requests.every((r) => r.authorization === `Bearer ${apiKey}`)).toBe(true);
    expect(cms.requests.some((r) => r.path.includes('page[offset]=2'))).toBe(true);

    // Other test files share the database (and so the push): look only at this test's resources.
    const before = cms.requests.length;
    const again = await request(h.url).post('/cms/sync').set('Authorization', h.writer).send({ cmsEndpoint: collection, apiKey, syncMode: 'bidirectional' });
    expect(again.status).toBe(200);
    // Nothing of ours is pulled again. (The count of what was created is not ours to assert: a
    // connection another test file registered, pushed by the first sync and deleted since, comes back.)
    const searchable = await request(h.url).get('/connections').query({ capability: 'search' }).set('Authorization', h.reader);
    expect(searchable.body.connections.filter((c: { name: string }) => c.name === fromCms)).toHaveLength(1);
    expect(again.body.errors.filter((e: { name: string }) => e.name === fromCms || e.name === local.name)).toEqual([]);
    const ours = [linked!.id, pushedLocal!.id];
    const writes = cms.requests.slice(before).filter((r) => r.method !== 'GET');
    expect(writes.filter((r) => ours.some((id) => r.path.endsWith(`/${id}`)))).toEqual([]);
    expect(resources().filter((r) => r.attributes.name === local.name || r.attributes.name === fromCms)).toHaveLength(2);
  });

  it('never sends the stored credentials of a connection to the CMS', async () => {
    await request(h.url).post('/cms/sync').set('Authorization', h.writer).send({ cmsEndpoint: collection, apiKey, syncMode: 'push' }).expect(200);
    const pushed = resources().find((r) => r.attributes.registry_id === local.id);
    expect(pushed?.attributes.endpoint).toEqual({ url: 'http://127.0.0.1:9/mcp', headers: { Authorization: '[redacted]' } });
    expect(JSON.stringify(cms.requests)).not.toContain('secret-of-the-mcp-server');
  });

  it('answers 502 with the status only when the CMS refuses the key, and 400 for a bad request', async () => {
    const refused = await request(h.url)
      .post('/cms/sync')
      .set('Authorization', h.writer)
      .send({ cmsEndpoint: collection, apiKey: 'wrong', syncMode: 'bidirectional' });
    expect(refused.status).toBe(502);
    expect(refused.body.error).toEqual({
      type: 'api_error',
      code: 'cms_unavailable',
      message: expect.stringContaining('401'),
      details: { reason: 'status', status: 401 },
    });
    const bad = await request(h.url)
      .post('/cms/sync')
      .set('Authorization', h.writer)
      .send({ cmsEndpoint: 'file:///etc/passwd', apiKey: '', syncMode: 'sideways' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues.map((i: { path: string }) => i.path).sort()).toEqual(['body.apiKey', 'body.cmsEndpoint', 'body.syncMode']);
  });

  it('answers 400, not 500 or 502, to an API key that cannot be sent in a header (outside Latin-1)', async () => {
    for (const key of ['ключ-к-cms', 'key\nX-Injected: 1', 'emoji-🔑']) {
      const res = await request(h.url).post('/cms/sync').set('Authorization', h.writer).send({ cmsEndpoint: collection, apiKey: key, syncMode: 'pull' });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ type: 'validation_error', details: { issues: [expect.objectContaining({ path: 'body.apiKey' })] } });
    }
  });

  it('never echoes the body of what answers at the URL, in any mode: status and a short reason only', async () => {
    const failing = await startInternalService(500);
    const refusing = await startInternalService(403);
    const notJsonApi = await startInternalService(200);
    try {
      for (const target of [failing, refusing, notJsonApi]) {
        for (const syncMode of ['pull', 'push', 'bidirectional']) {
          const res = await request(h.url).post('/cms/sync').set('Authorization', h.writer).send({ cmsEndpoint: target.url, apiKey, syncMode });
          expect(res.status).toBe(502);
          expect(res.body.error).toMatchObject({ type: 'api_error', code: 'cms_unavailable' });
          expect(res.body.error.details).not.toHaveProperty('body');
          expect(JSON.stringify(res.body)).not.toContain(INTERNAL_SECRET);
        }
      }
    } finally {
      await Promise.all([failing.close(), refusing.close(), notJsonApi.close()]);
    }
  });

  it('refuses a CMS on a private address unless the operator allows it (the outbound guard)', async () => {
    const guarded = await startHarness({ OUTBOUND_ALLOW_PRIVATE: 'false' });
    try {
      const before = cms.requests.length;
      const res = await request(guarded.url).post('/cms/sync').set('Authorization', guarded.writer).send({ cmsEndpoint: collection, apiKey, syncMode: 'pull' });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ type: 'validation_error', code: 'invalid_url', details: { reason: 'blocked' } });
      expect(cms.requests.length).toBe(before);
    } finally {
      await guarded.stop();
    }
  });
});
