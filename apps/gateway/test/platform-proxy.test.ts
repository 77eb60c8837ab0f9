import { listenLocally, closeLocally, spawnService, startPrivateRedis, uniqueName, type ServiceProcess } from '@platform/testing';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import http from 'node:http';
import { createServer } from 'node:net';
import path from 'node:path';
import request from 'supertest';
import WebSocket from 'ws';
import { Fakes } from './fakes';
import { startGateway, type Gateway } from './harness';

const ROOT = path.join(__dirname, '../../..');
const prefix = '/api/v1/platform';

/** A port nothing listens on (a service that is down). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A model server that streams server-sent events and holds the stream open until the test lets it
 * end: what a chat's token-by-token answer looks like to the gateway.
 */
class StreamingUpstream {
  seen: Array<{ method?: string; url?: string; authorization?: string; body: string; cookie?: string }> = [];
  ended = false;
  private release?: () => void;
  private readonly server = http.createServer((req, res) => {
    // A service that never answers.
    if (req.url === '/api/hang') return;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      this.seen.push({
        method: req.method,
        url: req.url,
        authorization: req.headers.authorization,
        body: Buffer.concat(chunks).toString(),
        cookie: req.headers.cookie,
      });
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        'proxy-authenticate': 'Basic realm="models"',
        'x-upstream': 'models',
      });
      res.write('data: {"delta":"Hel"}\n\n');
      new Promise<void>((resolve) => (this.release = resolve)).then(() => {
        res.end('data: {"delta":"lo"}\n\ndata: [DONE]\n\n');
        this.ended = true;
      });
    });
  });
  url = '';
  async start() {
    this.url = await listenLocally(this.server);
    return this;
  }
  finish() {
    this.release?.();
  }
  stop() {
    this.server.closeAllConnections();
    return closeLocally(this.server);
  }
}

describe('the platform pass-through /api/v1/platform/{service}/…', () => {
  let g: Gateway;
  let mcp: ServiceProcess;
  let redis: { url: string; stop: () => Promise<void> };
  let models: StreamingUpstream;

  beforeAll(async () => {
    const fakes = await new Fakes().start();
    // The real mcp-registry as its own process (an app never imports another); its queues on a Redis of their own.
    if (!existsSync(path.join(ROOT, 'apps/mcp-registry/src/generated/prisma/client.ts'))) {
      spawnSync(process.execPath, [require.resolve('prisma/build/index.js'), 'generate', '--config', 'prisma/mcp-registry/prisma.config.ts'], {
        cwd: ROOT,
        stdio: 'ignore',
      });
    }
    redis = await startPrivateRedis();
    mcp = await spawnService('mcp-registry', {
      env: {
        AUTH_URL: new URL(fakes.issuer.jwksUri).origin,
        AUTH_ISSUER: fakes.issuer.issuer,
        AUTH_AUDIENCE: fakes.issuer.audience,
        REDIS_URL: redis.url,
        OUTBOUND_ALLOW_PRIVATE: 'true',
      },
      timeoutMs: 90_000,
    });
    models = await new StreamingUpstream().start();
    g = await startGateway(
      {
        MCP_REGISTRY_URL: mcp.url,
        LOCAL_MODELS_URL: models.url,
        WORKERS_URL: `http://127.0.0.1:${await closedPort()}`,
        GATEWAY_PLATFORM_BODY_LIMIT: '4096',
        GATEWAY_PLATFORM_TIMEOUT_MS: '1000',
      },
      fakes,
    );
  }, 120_000);
  afterAll(async () => {
    await g?.stop();
    await mcp?.stop();
    await models?.stop();
    await redis?.stop();
  });

  const token = (permissions: string[], sub = uniqueName('user')) => g.issuer.bearer(permissions, { sub });

  it("passes a GET with its query and the caller's token: the service's status and body come back", async () => {
    const auth = token(['mcp:read']);
    const through = await request(g.app).get(`${prefix}/mcp-registry/connections?limit=5`).set('Authorization', auth);
    const direct = await request(mcp.url).get('/connections?limit=5').set('Authorization', auth);
    expect(through.status).toBe(200);
    expect(through.body).toEqual(direct.body);
    expect(through.headers['content-type']).toMatch(/application\/json/);
    // The gateway's rate limit applies to the pass-through too.
    expect(through.headers['x-ratelimit-limit']).toBe('1500');
  });

  it("passes a POST with its body: the service stores it as the caller's", async () => {
    const sub = uniqueName('owner');
    const name = uniqueName('conn');
    const created = await request(g.app)
      .post(`${prefix}/mcp-registry/connections`)
      .set('Authorization', token(['mcp:read', 'mcp:write'], sub))
      .send({ name, protocol: 'http', endpoint: { url: 'http://127.0.0.1:9/mcp' }, healthCheck: { enabled: false, interval: 30, timeout: 1000 } });
    expect({ status: created.status, error: created.body.error }).toEqual({ status: 201, error: undefined });
    expect(created.body).toMatchObject({ name, owner: sub });
    const stored = await request(mcp.url)
      .get(`/connections/${created.body.id}`)
      .set('Authorization', token(['mcp:read'], sub));
    expect(stored.status).toBe(200);
    expect(stored.body).toMatchObject({ id: created.body.id, name });
  });

  it("keeps the service's refusals: 403 without its permission, 401 without a token, its 400 and 404", async () => {
    const forbidden = await request(g.app)
      .post(`${prefix}/mcp-registry/connections`)
      .set('Authorization', token(['mcp:read']))
      .send({ name: uniqueName('conn'), protocol: 'http', endpoint: { url: 'http://127.0.0.1:9/mcp' } });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error).toMatchObject({ code: 'insufficient_permissions', details: { required: 'mcp:write' } });

    const anonymous = await request(g.app).get(`${prefix}/mcp-registry/connections`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error).toMatchObject({ type: 'authentication_error', code: 'invalid_token' });

    const invalid = await request(g.app)
      .post(`${prefix}/mcp-registry/connections`)
      .set('Authorization', token(['mcp:write']))
      .send({ name: '' });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.code).toBe('invalid_request');

    const missing = await request(g.app)
      .get(`${prefix}/mcp-registry/connections/00000000-0000-4000-8000-000000000000`)
      .set('Authorization', token(['mcp:read']));
    expect(missing.status).toBe(404);
  });

  it('exchanges an API key at auth and hands the service a bearer token', async () => {
    const key = `pk_${uniqueName('key')}_secret`;
    g.fakes.apiKeys.set(key, { sub: uniqueName('service'), permissions: ['mcp:read'] });
    const listed = await request(g.app).get(`${prefix}/mcp-registry/connections`).set('X-API-Key', key);
    expect(listed.status).toBe(200);
    const refused = await request(g.app).get(`${prefix}/mcp-registry/connections`).set('X-API-Key', 'pk_not_a_key_at_all');
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('invalid_api_key');
  });

  it('answers 404 for an unknown service and 503 dependency_unavailable for one that is down, in the error shape', async () => {
    const unknown = await request(g.app)
      .get(`${prefix}/billing/invoices`)
      .set('Authorization', token(['*']));
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ error: { type: 'not_found_error', code: 'not_found' }, requestId: expect.any(String) });
    const down = await request(g.app)
      .get(`${prefix}/workers/api/v1/definitions`)
      .set('Authorization', token(['*']));
    expect(down.status).toBe(503);
    expect(down.body.error).toMatchObject({ code: 'dependency_unavailable', details: { dependency: 'workers' } });
    const climbing = await request(g.app)
      .get(`${prefix}/mcp-registry/%2e%2e/%2e%2e/admin`)
      .set('Authorization', token(['*']));
    expect(climbing.status).toBe(400);
  });

  it('gives up on a service that does not answer: 503 naming it, never a hang', async () => {
    const hung = await request(g.app)
      .get(`${prefix}/local-models/api/hang`)
      .set('Authorization', token(['*']));
    expect(hung.status).toBe(503);
    expect(hung.body.error).toMatchObject({ code: 'dependency_unavailable', details: { dependency: 'local-models', reason: 'timeout' } });
  });

  it('documents the prefix in the OpenAPI document', async () => {
    const document = (await request(g.app).get('/openapi.json')).body as { paths: Record<string, Record<string, { tags?: string[] }>> };
    const operations = document.paths['/api/v1/platform/{service}/{path}'];
    expect(Object.keys(operations ?? {}).sort()).toEqual(['delete', 'get', 'patch', 'post', 'put']);
    expect(operations!.get.tags).toEqual(['platform']);
  });

  it('refuses a body over the limit with 413, declared or streamed', async () => {
    const declared = await request(g.app)
      .post(`${prefix}/local-models/api/chat`)
      .set('Authorization', token(['*']))
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ text: 'x'.repeat(5000) }));
    expect(declared.status).toBe(413);
    expect(declared.body.error).toMatchObject({ type: 'validation_error', code: 'payload_too_large' });

    const before = models.seen.length;
    const streamed = await new Promise<{ status?: number; body: string }>((resolve, reject) => {
      const req = http.request(`${g.service.url}${prefix}/local-models/api/chat`, {
        method: 'POST',
        headers: { authorization: token(['*']), 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      });
      req.on('response', (res) => {
        let body = '';
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode, body }));
      });
      req.on('error', reject);
      for (let i = 0; i < 10; i++) req.write('y'.repeat(1000));
      req.end();
    });
    expect(streamed.status).toBe(413);
    expect(JSON.parse(streamed.body).error.code).toBe('payload_too_large');
    expect(models.seen.slice(before).every((seen) => seen.body.length <= 4096)).toBe(true);
  });

  it('streams server-sent events as they come: the first arrives while the service still holds the stream', async () => {
    const auth = token(['models:invoke']);
    const response = await fetch(`${g.service.url}${prefix}/local-models/v1/chat/completions?stream=true`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json', cookie: 'platform_session=secret' },
      body: JSON.stringify({ model: 'tiny', stream: true }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('x-upstream')).toBe('models');
    // Hop-by-hop headers of the service's answer are the gateway's own business, not the caller's.
    expect(response.headers.get('proxy-authenticate')).toBeNull();
    const stream = response.body!.getReader();
    const first = new TextDecoder().decode((await stream.read()).value);
    expect(first).toContain('"delta":"Hel"');
    expect(models.ended).toBe(false);
    // A stream outlives the pass-through's deadline (1 s here): only the service or the caller ends it.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    models.finish();
    let rest = '';
    for (let chunk = await stream.read(); !chunk.done; chunk = await stream.read()) rest += new TextDecoder().decode(chunk.value);
    expect(rest).toContain('[DONE]');
    const seen = models.seen.at(-1)!;
    expect(seen).toMatchObject({
      method: 'POST',
      url: '/v1/chat/completions?stream=true',
      authorization: auth,
      body: JSON.stringify({ model: 'tiny', stream: true }),
    });
    // The console's session cookie never reaches a service.
    expect(seen.cookie).toBeUndefined();
  });

  describe('WebSockets', () => {
    const wsUrl = (query = '') => `${g.service.url.replace('http', 'ws')}${prefix}/mcp-registry/registry/stream${query}`;

    /** Opens the stream, reads the welcome, subscribes and reads the answer: both directions. */
    async function converse(ws: WebSocket): Promise<Array<{ type: string }>> {
      const messages: Array<{ type: string }> = [];
      await new Promise<void>((resolve, reject) => {
        ws.on('message', (data) => {
          messages.push(JSON.parse(data.toString()));
          if (messages.length === 1) ws.send(JSON.stringify({ action: 'subscribe', events: ['connection-status'] }));
          if (messages.length === 2) resolve();
        });
        ws.on('error', reject);
        ws.on('unexpected-response', (_req, res) => reject(new Error(`refused with ${res.statusCode}`)));
      });
      ws.close();
      return messages;
    }

    it('relays both ways with the token as a header', async () => {
      const messages = await converse(new WebSocket(wsUrl(), { headers: { authorization: token(['mcp:read']) } }));
      expect(messages.map((message) => message.type)).toEqual(['welcome', 'subscribed']);
    });

    it('exchanges an API key on the upgrade as on any request', async () => {
      const key = `pk_${uniqueName('ws-key')}_secret`;
      g.fakes.apiKeys.set(key, { sub: uniqueName('service'), permissions: ['mcp:read'] });
      const messages = await converse(new WebSocket(wsUrl(), { headers: { 'x-api-key': key } }));
      expect(messages.map((message) => message.type)).toEqual(['welcome', 'subscribed']);
    });

    it('takes the token as access_token or a bearer subprotocol, as a browser sends it', async () => {
      const bare = token(['mcp:read']).replace(/^Bearer /, '');
      expect((await converse(new WebSocket(wsUrl(`?access_token=${bare}`)))).map((m) => m.type)).toEqual(['welcome', 'subscribed']);
      const ws = new WebSocket(wsUrl(), [`bearer.${bare}`]);
      expect((await converse(ws)).map((m) => m.type)).toEqual(['welcome', 'subscribed']);
      expect(ws.protocol).toBe(`bearer.${bare}`);
      // Beside a protocol of the service's, the token stays with the gateway and the service's choice stands.
      const both = new WebSocket(wsUrl(), ['platform.v1', `bearer.${bare}`]);
      expect((await converse(both)).map((m) => m.type)).toEqual(['welcome', 'subscribed']);
      expect(both.protocol).toBe('platform.v1');
    });

    it("answers the service's refusal: 403 without its permission, 401 without a token", async () => {
      const refusal = (ws: WebSocket) =>
        new Promise<{ status: number; code?: string }>((resolve, reject) => {
          ws.on('unexpected-response', (_req, res) => {
            let body = '';
            res.on('data', (chunk) => (body += chunk));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, code: (JSON.parse(body) as { error: { code: string } }).error.code }));
          });
          ws.on('open', () => reject(new Error('opened')));
          ws.on('error', () => undefined);
        });
      expect(await refusal(new WebSocket(wsUrl(), { headers: { authorization: token(['agents:read']) } }))).toEqual({
        status: 403,
        code: 'insufficient_permissions',
      });
      expect(await refusal(new WebSocket(wsUrl()))).toEqual({ status: 401, code: 'invalid_token' });
      expect(await refusal(new WebSocket(`${g.service.url.replace('http', 'ws')}${prefix}/nothing/stream`))).toEqual({ status: 404, code: 'not_found' });
    });
  });
});

describe('the pass-through under the gateway rate limit', () => {
  let g: Gateway;
  beforeAll(async () => {
    g = await startGateway({ GATEWAY_RATE_LIMIT: '2', GATEWAY_RATE_BURST: '2', GATEWAY_RATE_WINDOW: '3600' });
  });
  afterAll(() => g.stop());

  it('charges each call and each upgrade to the caller: 429 with Retry-After past the limit', async () => {
    const auth = g.issuer.bearer(['*'], { sub: uniqueName('busy') });
    for (let call = 0; call < 2; call++) {
      const res = await request(g.app).get(`${prefix}/mcp-registry/connections`).set('Authorization', auth);
      expect(res.status).not.toBe(429);
    }
    const limited = await request(g.app).get(`${prefix}/mcp-registry/connections`).set('Authorization', auth);
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    const upgrade = await new Promise<number>((resolve) => {
      const ws = new WebSocket(`${g.service.url.replace('http', 'ws')}${prefix}/mcp-registry/registry/stream`, { headers: { authorization: auth } });
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('error', () => undefined);
    });
    expect(upgrade).toBe(429);
  });
});
