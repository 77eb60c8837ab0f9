import { uniqueName } from '@platform/testing';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { startHarness, type Harness } from './fixtures';

interface Resource {
  type: string;
  id: string;
  attributes: Record<string, unknown>;
}

/** A fake CMS serving one JSON:API collection, paged two at a time, behind an API key. */
async function startFakeCms(apiKey: string, initial: Resource[]) {
  const resources = [...initial];
  const requests: Array<{ method: string; url: string; contentType?: string }> = [];
  let nextId = 1;
  const server = http.createServer(async (req, res) => {
    requests.push({ method: req.method!, url: req.url!, contentType: req.headers['content-type'] });
    const send = (status: number, body?: unknown) => {
      res.writeHead(status, { 'Content-Type': 'application/vnd.api+json' });
      res.end(body === undefined ? '' : JSON.stringify(body));
    };
    if (req.headers.authorization !== `Bearer ${apiKey}`) return send(401, { errors: [{ status: '401', title: 'Unauthorized' }] });
    const url = new URL(req.url!, 'http://cms');
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : undefined;
    if (req.method === 'GET' && url.pathname === '/jsonapi/mcp_connection') {
      const offset = Number(url.searchParams.get('page[offset]') ?? 0);
      const data = resources.slice(offset, offset + 2);
      const links = offset + 2 < resources.length ? { next: { href: `/jsonapi/mcp_connection?page[offset]=${offset + 2}` } } : {};
      return send(200, { data, links });
    }
    if (req.method === 'POST' && url.pathname === '/jsonapi/mcp_connection') {
      const resource = { type: body.data.type, id: `cms-${nextId++}`, attributes: body.data.attributes };
      resources.push(resource);
      return send(201, { data: resource });
    }
    const match = /^\/jsonapi\/mcp_connection\/(.+)$/.exec(url.pathname);
    if (req.method === 'PATCH' && match) {
      const resource = resources.find((r) => r.id === decodeURIComponent(match[1]));
      if (!resource) return send(404);
      resource.attributes = { ...resource.attributes, ...body.data.attributes };
      return send(200, { data: resource });
    }
    send(404);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/jsonapi/mcp_connection`,
    resources,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('/cms/sync', () => {
  let h: Harness;
  let cms: Awaited<ReturnType<typeof startFakeCms>>;
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
        endpoint: { url: 'http://127.0.0.1:9/mcp' },
        capabilities: ['files'],
        healthCheck: { enabled: false, interval: 30, timeout: 1000 },
      });
    local = res.body;
    cms = await startFakeCms(apiKey, [
      {
        type: 'mcp_connection',
        id: 'cms-a',
        attributes: {
          name: fromCms,
          connection_type: 'server',
          protocol: 'http',
          endpoint: { url: 'http://127.0.0.1:9/other' },
          capabilities: ['search'],
          health_check: { enabled: false, interval: 30, timeout: 1000 },
        },
      },
      { type: 'mcp_connection', id: 'cms-b', attributes: { name: stdioFromCms, protocol: 'stdio', endpoint: { command: 'mcp-server-everything' } } },
      { type: 'mcp_connection', id: 'cms-c', attributes: { name: uniqueName('broken'), protocol: 'http', endpoint: {} } },
    ]);
  });
  afterAll(async () => {
    await Promise.all([h.stop(), cms.close()]);
  });

  it('pulls what the CMS defines and pushes every connection back, over JSON:API', async () => {
    const res = await request(h.url).post('/cms/sync').set('Authorization', h.writer).send({ cmsEndpoint: cms.url, apiKey, syncMode: 'bidirectional' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ syncMode: 'bidirectional', pulled: { created: 1 }, syncedAt: expect.any(String) });
    // The stdio entry needs an admin; the broken one fails validation: both reported, neither stops the sync.
    expect(res.body.errors.map((e: { name: string }) => e.name)).toEqual([stdioFromCms, expect.stringMatching(/^broken-/)]);
    const pulled = await request(h.url).get('/connections').query({ capability: 'search' }).set('Authorization', h.reader);
    expect(pulled.body.connections.map((c: { name: string }) => c.name)).toContain(fromCms);

    const pushedLocal = cms.resources.find((r) => r.attributes.registry_id === local.id);
    expect(pushedLocal?.attributes).toMatchObject({ name: local.name, protocol: 'http', capabilities: ['files'], connection_type: 'server' });
    const linked = cms.resources.find((r) => r.id === 'cms-a');
    expect(linked?.attributes.registry_id).toEqual(expect.any(String));
    expect(cms.requests.filter((r) => r.method !== 'GET').every((r) => r.contentType === 'application/vnd.api+json')).toBe(true);
    expect(cms.requests.some((r) => r.url.includes('page[offset]=2'))).toBe(true);

    // Other test files share the database (and so the push): look only at this test's resources.
    const before = cms.requests.length;
    const again = await request(h.url).post('/cms/sync').set('Authorization', h.writer).send({ cmsEndpoint: cms.url, apiKey, syncMode: 'bidirectional' });
    expect(again.status).toBe(200);
    expect(again.body.pulled.created).toBe(0);
    const ours = new Set(['cms-a', pushedLocal!.id]);
    const writes = cms.requests.slice(before).filter((r) => r.method !== 'GET');
    expect(writes.filter((r) => [...ours].some((id) => r.url.endsWith(`/${id}`)))).toEqual([]);
    expect(cms.resources.filter((r) => r.attributes.name === local.name || r.attributes.name === fromCms)).toHaveLength(2);
  });

  it('answers 502 when the CMS refuses the key, and 400 for a bad request', async () => {
    const refused = await request(h.url)
      .post('/cms/sync')
      .set('Authorization', h.writer)
      .send({ cmsEndpoint: cms.url, apiKey: 'wrong', syncMode: 'bidirectional' });
    expect(refused.status).toBe(502);
    expect(refused.body.error).toMatchObject({ type: 'api_error', code: 'cms_unavailable', details: { status: 401 } });
    const bad = await request(h.url)
      .post('/cms/sync')
      .set('Authorization', h.writer)
      .send({ cmsEndpoint: 'file:///etc/passwd', apiKey: '', syncMode: 'sideways' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues.map((i: { path: string }) => i.path).sort()).toEqual(['body.apiKey', 'body.cmsEndpoint', 'body.syncMode']);
  });

  it('refuses a CMS on a private address unless the operator allows it (the outbound guard)', async () => {
    const guarded = await startHarness({ OUTBOUND_ALLOW_PRIVATE: 'false' });
    try {
      const res = await request(guarded.url).post('/cms/sync').set('Authorization', guarded.writer).send({ cmsEndpoint: cms.url, apiKey, syncMode: 'pull' });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ type: 'validation_error', code: 'invalid_url', details: { reason: 'blocked_address' } });
    } finally {
      await guarded.stop();
    }
  });
});
