import { FakeCms } from '@platform/testing';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { JsonApiCmsClient, LocalModelsClient, serviceApiKeyToken, ServiceClient, UpstreamError } from './index';

type Handler = (req: http.IncomingMessage, body: string, res: http.ServerResponse) => void;

async function server(handler: Handler) {
  const seen: Array<{ method?: string; url?: string; headers: http.IncomingHttpHeaders; body: string }> = [];
  const srv = http.createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    seen.push({ method: req.method, url: req.url, headers: req.headers, body });
    handler(req, body, res);
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`, seen, close: () => (srv.closeAllConnections(), new Promise((r) => srv.close(r))) };
}

describe('ServiceClient', () => {
  it('retries an idempotent call after a 5xx and never retries a POST', async () => {
    let calls = 0;
    const s = await server((_req, _body, res) => {
      calls += 1;
      res.writeHead(calls === 1 ? 503 : 200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ ok: calls }));
    });
    const client = new ServiceClient({ service: 'peer', baseUrl: s.url, retryDelayMs: 1 });
    await expect(client.request('GET', '/thing')).resolves.toEqual({ ok: 2 });
    calls = 0;
    await expect(client.request('POST', '/thing', { body: {} })).rejects.toMatchObject({ status: 502, code: 'upstream_error', upstreamStatus: 503 });
    expect(calls).toBe(1);
    await s.close();
  });

  it('times out a call that hangs and names the dependency', async () => {
    const s = await server(() => undefined);
    const client = new ServiceClient({ service: 'slowpoke', baseUrl: s.url, timeoutMs: 100, retries: 0 });
    const error = await client.request('GET', '/x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).reason).toBe('timeout');
    expect((error as UpstreamError).message).toContain('slowpoke');
    await s.close();
  });

  it('says which dependency is down when nothing listens', async () => {
    const client = new ServiceClient({ service: 'local-models', baseUrl: 'http://127.0.0.1:1', retries: 0 });
    await expect(client.request('GET', '/api/tags')).rejects.toMatchObject({ reason: 'network', details: { service: 'local-models' } });
  });

  it('exchanges a service API key once and forwards a user bearer instead when given', async () => {
    let exchanges = 0;
    const s = await server((req, body, res) => {
      if (req.url === '/api/v1/auth/api-key') {
        exchanges += 1;
        expect(JSON.parse(body)).toEqual({ api_key: 'key-1', client_id: 'workflow-engine' });
        return res
          .writeHead(200, { 'Content-Type': 'application/json' })
          .end(JSON.stringify({ access_token: 'svc-token', token_type: 'Bearer', expires_in: 900, service: 'workflow-engine', permissions: [] }));
      }
      res
        .writeHead(200, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ auth: req.headers.authorization, requestId: req.headers['x-request-id'] ?? null }));
    });
    const client = new ServiceClient({
      service: 'peer',
      baseUrl: s.url,
      token: serviceApiKeyToken({ authUrl: s.url, apiKey: 'key-1', clientId: 'workflow-engine' }),
    });
    const [a, b] = await Promise.all([client.request('GET', '/a'), client.request('GET', '/b')]);
    expect(a).toMatchObject({ auth: 'Bearer svc-token' });
    expect(b).toMatchObject({ auth: 'Bearer svc-token' });
    expect(await client.request('GET', '/c', { bearer: 'user-token' })).toMatchObject({ auth: 'Bearer user-token' });
    expect(exchanges).toBe(1);
    await s.close();
  });
});

describe('LocalModelsClient', () => {
  it('asks /api/generate for one object and parses the Ollama answer', async () => {
    const s = await server((_req, body, res) => {
      const request = JSON.parse(body);
      res
        .writeHead(200, { 'Content-Type': 'application/json' })
        .end(
          JSON.stringify({ model: request.model, response: `echo ${request.prompt}`, done: true, stream: request.stream, prompt_eval_count: 3, eval_count: 2 }),
        );
    });
    const client = new LocalModelsClient({ baseUrl: s.url });
    const answer = await client.generate({ model: 'tiny', prompt: 'hi' });
    expect(answer).toMatchObject({ model: 'tiny', response: 'echo hi', prompt_eval_count: 3, eval_count: 2, stream: false });
    await s.close();
  });
});

describe('JsonApiCmsClient against the fake CMS', () => {
  it('creates, loads by number and uuid, updates, pages and logs in', async () => {
    const cms = await new FakeCms({ users: { ada: 'secret' }, pageSize: 2 }).start();
    const client = new JsonApiCmsClient({ baseUrl: cms.url, token: () => 'cms-test-key', allowPrivate: true });
    const created = await client.createNode('article', { title: 'Hello' });
    expect(created).toMatchObject({ type: 'node--article', attributes: { title: 'Hello', drupal_internal__nid: 1 } });
    expect((await client.loadNode('article', 1)).id).toBe(created.id);
    expect((await client.loadNode('article', created.id)).attributes.title).toBe('Hello');
    const updated = await client.updateNode('article', 1, { title: 'Changed' });
    expect(updated.attributes.title).toBe('Changed');
    cms.seed('article', { title: 'two' });
    cms.seed('article', { title: 'three' });
    expect((await client.list('/jsonapi/node/article')).map((node) => node.attributes.title)).toEqual(['Changed', 'two', 'three']);
    const token = await client.login('ada', 'secret', 'platform');
    expect(token).toMatch(/^user-/);
    await expect(client.login('ada', 'wrong', 'platform')).rejects.toMatchObject({ upstreamStatus: 400 });
    await expect(new JsonApiCmsClient({ baseUrl: cms.url, token: () => 'bad', allowPrivate: true }).createNode('article', {})).rejects.toMatchObject({
      upstreamStatus: 401,
    });
    await cms.stop();
  });

  it('refuses a loopback CMS unless private addresses are allowed', async () => {
    const cms = await new FakeCms().start();
    const client = new JsonApiCmsClient({ baseUrl: cms.url, token: () => 'cms-test-key' });
    await expect(client.createNode('article', { title: 'x' })).rejects.toMatchObject({ reason: 'blocked' });
    expect(cms.requests).toHaveLength(0);
    await cms.stop();
  });
});
