import { uniqueName } from '@platform/testing';
import request from 'supertest';
import { startHarness, type Harness } from './fixtures';
import { Gate, startHttpMcpServer, startWebSocketMcpServer, type RunningServer, type RunningWebSocketServer } from './mcp-servers';

/**
 * HTTP and WebSocket connections reach a user's URL: through the outbound guard. With private
 * addresses not allowed (`OUTBOUND_ALLOW_PRIVATE=false`, production's default), a loopback server
 * is never reached: a literal address is refused at registration, a name that resolves to one
 * when the session connects. With them allowed (the harness's default) the same servers answer.
 */
describe('the outbound guard on MCP connections', () => {
  let guarded: Harness;
  let allowed: Harness;
  const tool = uniqueName('lookup');
  const gate = new Gate();
  let httpServer: RunningServer;
  let wsServer: RunningWebSocketServer;

  // Two registries one after the other (each migrates and boots): more than the default hook timeout on a busy machine.
  beforeAll(async () => {
    [httpServer, wsServer] = await Promise.all([startHttpMcpServer(tool, gate), startWebSocketMcpServer(tool, gate)]);
    guarded = await startHarness({ OUTBOUND_ALLOW_PRIVATE: 'false' });
    allowed = await startHarness();
  }, 120_000);
  afterAll(async () => {
    gate.release();
    await Promise.all([guarded?.stop(), allowed?.stop(), httpServer?.close(), wsServer?.close()]);
  }, 60_000);

  const register = (h: Harness, protocol: 'http' | 'websocket', url: string) =>
    request(h.url)
      .post('/connections')
      .set('Authorization', h.writer)
      .send({ name: uniqueName(`guarded-${protocol}`), protocol, endpoint: { url }, healthCheck: { enabled: false, interval: 30, timeout: 10_000 } });
  /** The server's URL with its host spelled as a name: only a DNS lookup tells it is loopback. */
  const byName = (url: string) => url.replace('127.0.0.1', 'localhost');

  it('ends a connection to a name resolving to loopback in error, naming the address, with no request reaching the server', async () => {
    const before = { http: httpServer.received(), ws: wsServer.received() };
    for (const [protocol, url] of [
      ['http', byName(httpServer.url)],
      ['websocket', byName(wsServer.url)],
    ] as const) {
      const res = await register(guarded, protocol, url);
      expect(res.status).toBe(201);
      const check = await request(guarded.url).post(`/connections/${res.body.id}/health-check`).set('Authorization', guarded.writer);
      expect(check.status).toBe(200);
      expect(check.body).toMatchObject({ health: { status: 'error' }, error: 'localhost resolves to a private address' });
      const detail = await request(guarded.url).get(`/connections/${res.body.id}`).set('Authorization', guarded.reader);
      expect(detail.body).toMatchObject({ status: 'error', health: { status: 'error', lastError: 'localhost resolves to a private address' } });

      const call = await request(guarded.url)
        .post(`/connections/${res.body.id}/tools/${tool}/call`)
        .set('Authorization', guarded.writer)
        .send({ arguments: { key: 'k1' } });
      expect(call.status).toBe(400);
      expect(call.body.error).toMatchObject({
        type: 'validation_error',
        code: 'invalid_url',
        message: expect.stringContaining('localhost resolves to a private address'),
        details: { field: 'endpoint.url', reason: 'blocked_address' },
      });
    }
    expect({ http: httpServer.received(), ws: wsServer.received() }).toEqual(before);
  });

  it('refuses a literal private address at registration and import, naming the field', async () => {
    const before = httpServer.received();
    const res = await register(guarded, 'http', httpServer.url);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      type: 'validation_error',
      code: 'invalid_url',
      message: expect.stringContaining(`endpoint.url: ${new URL(httpServer.url).host} is a private address`),
      details: { field: 'endpoint.url', reason: 'blocked_address' },
    });
    const ws = await register(guarded, 'websocket', 'ws://[::1]:9/');
    expect(ws.status).toBe(400);
    expect(ws.body.error.details).toEqual({ field: 'endpoint.url', reason: 'blocked_address' });

    const existing = await register(guarded, 'http', 'http://public.example/mcp');
    expect(existing.status).toBe(201);
    const entry = (name: string) => ({ name, type: 'server', protocol: 'http', endpoint: { url: 'http://169.254.169.254/mcp' }, capabilities: [] });
    const fresh = uniqueName('imported');
    const imported = await request(guarded.url)
      .post('/registry/import')
      .set('Authorization', guarded.writer)
      .send({ connections: [entry(fresh), entry(existing.body.name)], onConflict: 'replace' });
    expect(imported.status).toBe(200);
    expect(imported.body).toMatchObject({ imported: [], updated: [] });
    expect(imported.body.errors).toEqual([
      { name: fresh, error: expect.stringContaining('endpoint.url: 169.254.169.254 is a private address') },
      { name: existing.body.name, error: expect.stringContaining('endpoint.url: 169.254.169.254 is a private address') },
    ]);
    const kept = await request(guarded.url).get(`/connections/${existing.body.id}`).set('Authorization', guarded.reader);
    expect(kept.body.endpoint.url).toBe('http://public.example/mcp');
    expect(httpServer.received()).toBe(before);
  });

  it('refuses a URL whose scheme is wrong for its protocol at registration, import and change', async () => {
    const http = await register(guarded, 'http', 'ws://public.example/mcp');
    expect(http.status).toBe(400);
    expect(http.body.error.details.issues).toEqual([expect.objectContaining({ path: 'body.endpoint.url', message: expect.stringMatching(/http: or https:/) })]);
    const ws = await register(guarded, 'websocket', 'https://public.example/mcp');
    expect(ws.status).toBe(400);
    expect(ws.body.error.details.issues).toEqual([expect.objectContaining({ path: 'body.endpoint.url', message: expect.stringMatching(/ws: or wss:/) })]);
    const file = await register(guarded, 'http', 'file:///etc/passwd');
    expect(file.status).toBe(400);
    expect(file.body.error.details.issues).toEqual([expect.objectContaining({ path: 'body.endpoint.url' })]);

    const name = uniqueName('wrong-scheme');
    const imported = await request(guarded.url)
      .post('/registry/import')
      .set('Authorization', guarded.writer)
      .send({ connections: [{ name, type: 'server', protocol: 'websocket', endpoint: { url: 'http://public.example/mcp' }, capabilities: [] }] });
    expect(imported.body.errors).toEqual([{ name, error: expect.stringMatching(/^endpoint\.url: a websocket connection needs a ws: or wss: url/) }]);

    // An endpoint is not changed by PATCH at all (register again, or import with replace).
    const existing = await register(guarded, 'http', 'http://public.example/mcp');
    const patch = await request(guarded.url)
      .patch(`/connections/${existing.body.id}`)
      .set('Authorization', guarded.writer)
      .send({ endpoint: { url: 'file:///etc/passwd' } });
    expect(patch.status).toBe(400);
    expect(patch.body.error.type).toBe('validation_error');
  });

  it('reaches the same servers over http and websocket when private addresses are allowed', async () => {
    const before = { http: httpServer.received(), ws: wsServer.received() };
    for (const [protocol, url] of [
      ['http', httpServer.url],
      ['websocket', wsServer.url],
    ] as const) {
      const res = await register(allowed, protocol, url);
      expect(res.status).toBe(201);
      const check = await request(allowed.url).post(`/connections/${res.body.id}/health-check`).set('Authorization', allowed.writer);
      expect(check.body).toMatchObject({ health: { status: 'healthy' }, diagnostics: { tools: 2 } });
      const call = await request(allowed.url)
        .post(`/connections/${res.body.id}/tools/${tool}/call`)
        .set('Authorization', allowed.writer)
        .send({ arguments: { key: 'k1' } });
      expect(call.body).toMatchObject({ success: true, result: { content: [{ type: 'text', text: 'value of k1' }] } });
    }
    expect(httpServer.received()).toBeGreaterThan(before.http);
    expect(wsServer.received()).toBeGreaterThan(before.ws);
  });
});
