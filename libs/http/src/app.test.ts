import { createRedis, prismaAdapter } from '@platform/data';
import { TestIssuer, testDatabaseUrl } from '@platform/testing';
import request from 'supertest';
import { z } from 'zod';
import { ApiRouter } from './api-router';
import { conflict } from './errors';
import { createLogger } from '@platform/telemetry';
import { createServiceApp } from './app';

describe('createServiceApp', () => {
  const issuer = new TestIssuer();
  let app: ReturnType<typeof createServiceApp>;
  let down = false;

  beforeAll(async () => {
    await issuer.start();
    const api = new ApiRouter(issuer.verifier())
      .route({
        method: 'post',
        path: '/things/:id',
        summary: 'Create a thing',
        access: { permission: 'things:write' },
        params: z.object({ id: z.string().regex(/^[a-z]+$/) }),
        body: z.object({ size: z.number().int().positive() }).strict(),
        responses: { 201: { description: 'Created', schema: z.object({ id: z.string(), size: z.number() }) } },
        handler: (req) => ({ id: req.valid.params.id, size: req.valid.body.size }),
      })
      .route({
        method: 'get',
        path: '/things/taken',
        summary: 'A conflict',
        access: 'public',
        responses: { 200: { description: 'never' } },
        handler: () => {
          throw conflict('taken');
        },
      })
      .route({
        method: 'get',
        path: '/stores/:store',
        summary: 'Touches a store that is down',
        access: 'public',
        params: z.object({ store: z.enum(['postgres', 'postgres-slow', 'redis', 'unique']) }),
        responses: { 200: { description: 'never' } },
        handler: async (req) => {
          if (req.valid.params.store === 'redis') {
            const redis = createRedis('redis://127.0.0.1:1');
            try {
              return await redis.get('x');
            } finally {
              redis.disconnect();
            }
          }
          if (req.valid.params.store === 'unique') {
            const driver = await prismaAdapter(testDatabaseUrl, 'public').connect();
            try {
              await driver.executeRaw({ sql: 'CREATE TEMP TABLE once (name text PRIMARY KEY)', args: [], argTypes: [] });
              await driver.executeRaw({ sql: "INSERT INTO once VALUES ('a'), ('a')", args: [], argTypes: [] });
            } finally {
              await driver.dispose();
            }
          }
          const slow = req.valid.params.store === 'postgres-slow';
          const driver = await prismaAdapter(slow ? testDatabaseUrl : 'postgresql://postgres@127.0.0.1:1/none', 'public', { statementTimeoutMs: 50 }).connect();
          try {
            return await driver.queryRaw({ sql: 'SELECT pg_sleep(2)', args: [], argTypes: [] });
          } finally {
            await driver.dispose();
          }
        },
      })
      .route({
        method: 'get',
        path: '/crash',
        summary: 'An unexpected failure',
        access: 'public',
        responses: { 200: { description: 'never' } },
        handler: () => {
          throw new Error('SELECT secret FROM db');
        },
      });
    app = createServiceApp({
      name: 'kit-test',
      logger: createLogger('kit-test', '0.0.0', 'silent'),
      openapi: { title: 'Kit test', version: '1.2.3' },
      health: { checks: { database: async () => (down ? Promise.reject(new Error('down')) : 1) } },
      routers: [{ basePath: '/api/v1', router: api }],
      bodyLimit: '1kb',
    });
  });
  afterAll(() => issuer.stop());

  it('runs a valid, authorized request and answers with the first 2xx status', async () => {
    const res = await request(app)
      .post('/api/v1/things/abc')
      .set('Authorization', issuer.bearer(['things:write']))
      .send({ size: 3 });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: 'abc', size: 3 });
    expect(res.headers['x-request-id']).toBeDefined();
  });

  it('answers 401 without a token, 403 without the permission, with the error shape', async () => {
    const missing = await request(app).post('/api/v1/things/abc').send({ size: 3 });
    expect(missing.status).toBe(401);
    expect(missing.body).toMatchObject({ error: { type: 'authentication_error', code: 'invalid_token', details: { reason: 'token_missing' } } });
    expect(missing.body.requestId).toBe(missing.headers['x-request-id']);
    const denied = await request(app)
      .post('/api/v1/things/abc')
      .set('Authorization', issuer.bearer(['things:read']))
      .send({ size: 3 });
    expect(denied.status).toBe(403);
    expect(denied.body.error).toMatchObject({
      type: 'authorization_error',
      code: 'insufficient_permissions',
      details: { required: 'things:write', userPermissions: ['things:read'] },
    });
  });

  it('answers 400 with the zod issues and their paths', async () => {
    const res = await request(app)
      .post('/api/v1/things/ABC')
      .set('Authorization', issuer.bearer(['*']))
      .send({ size: -1, extra: 1 });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    const paths = res.body.error.details.issues.map((issue: { path: string }) => issue.path);
    expect(paths).toEqual(['params.id', 'body.size', 'body']);
  });

  it('answers 400 for broken JSON and 413 for a body over the limit', async () => {
    const broken = await request(app)
      .post('/api/v1/things/abc')
      .set('Authorization', issuer.bearer(['*']))
      .set('Content-Type', 'application/json')
      .send('{"size":');
    expect(broken.status).toBe(400);
    const large = await request(app)
      .post('/api/v1/things/abc')
      .set('Authorization', issuer.bearer(['*']))
      .send({ size: 1, pad: 'x'.repeat(4096) });
    expect(large.status).toBe(413);
    expect(large.body.error).toMatchObject({ type: 'validation_error', code: 'payload_too_large' });
  });

  it("keeps a client error's 4xx status in the error shape: bad percent-escapes, undecodable bodies", async () => {
    for (const path of ['/api/v1/things/%E0%A4%A', '/api/v1/things/%FF']) {
      const res = await request(app)
        .post(path)
        .set('Authorization', issuer.bearer(['*']))
        .send({ size: 1 });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ type: 'validation_error', code: 'invalid_request' });
    }
    for (const encoding of ['gzip', 'deflate', 'br']) {
      const res = await request(app)
        .post('/api/v1/things/abc')
        .set('Authorization', issuer.bearer(['*']))
        .set('Content-Type', 'application/json')
        .set('Content-Encoding', encoding)
        .send('{"size":1}');
      expect(res.status).toBe(400);
      expect(res.body.error.type).toBe('validation_error');
    }
    const unknown = await request(app)
      .post('/api/v1/things/abc')
      .set('Authorization', issuer.bearer(['*']))
      .set('Content-Type', 'application/json')
      .set('Content-Encoding', 'zstd-nope')
      .send('{"size":1}');
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ type: 'validation_error', message: 'The request body encoding is not supported' });
  });

  it('refuses JSON nested too deep, and text with NUL or unpaired surrogates, before the handler (400)', async () => {
    const deep = await request(app)
      .post('/api/v1/things/abc')
      .set('Authorization', issuer.bearer(['*']))
      .set('Content-Type', 'application/json')
      .send(`{"size":1,"x":${'['.repeat(300)}${']'.repeat(300)}}`);
    expect(deep.status).toBe(400);
    expect(deep.body.error.message).toMatch(/nested deeper than 64/);
    const nul = await request(app)
      .post('/api/v1/things/abc')
      .set('Authorization', issuer.bearer(['*']))
      .set('Content-Type', 'application/json')
      .send('{"size":1,"name":"a\\u0000b"}');
    expect(nul.status).toBe(400);
    expect(nul.body.error.details.issues).toContainEqual(expect.objectContaining({ path: 'body.name', code: 'invalid_characters' }));
    const surrogate = await request(app)
      .post('/api/v1/things/abc')
      .set('Authorization', issuer.bearer(['*']))
      .set('Content-Type', 'application/json')
      .send('{"size":1,"tags":["ok","\\ud800"]}');
    expect(surrogate.body.error.details.issues).toContainEqual(expect.objectContaining({ path: 'body.tags.1' }));
    const paired = await request(app)
      .post('/api/v1/things/abc')
      .set('Authorization', issuer.bearer(['*']))
      .send({ size: 1 });
    expect(paired.status).toBe(201);
  });

  it('maps thrown ApiErrors and hides unexpected ones', async () => {
    const taken = await request(app).get('/api/v1/things/taken');
    expect(taken.status).toBe(409);
    expect(taken.body.error).toMatchObject({ type: 'conflict_error', code: 'conflict', message: 'taken' });
    const crash = await request(app).get('/api/v1/crash');
    expect(crash.status).toBe(500);
    expect(JSON.stringify(crash.body)).not.toContain('SELECT');
    expect(crash.body.error).toMatchObject({ type: 'api_error', code: 'internal_error' });
  });

  it('answers 503 naming the dependency when Postgres or Redis is down or stuck, never 500', async () => {
    for (const [store, dependency] of [
      ['postgres', 'database'],
      ['postgres-slow', 'database'],
      ['redis', 'cache'],
    ]) {
      const res = await request(app).get(`/api/v1/stores/${store}`);
      expect(res.status).toBe(503);
      expect(res.body.error).toMatchObject({ type: 'api_error', code: 'service_unavailable', details: { dependency } });
      expect(res.headers['retry-after']).toBe('5');
    }
  });

  it('answers 409 when a unique constraint refuses a row (two requests racing to create one thing)', async () => {
    const res = await request(app).get('/api/v1/stores/unique');
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ type: 'conflict_error', code: 'conflict' });
  });

  it('answers 404 route_not_found for an unknown path', async () => {
    const res = await request(app).get('/nope');
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('route_not_found');
  });

  it('reports health and readiness from the real checks', async () => {
    expect((await request(app).get('/health/live')).status).toBe(200);
    const ready = await request(app).get('/health/ready');
    expect(ready.body).toMatchObject({ status: 'healthy', version: '1.2.3', dependencies: { database: 'up' } });
    down = true;
    const notReady = await request(app).get('/health/ready');
    down = false;
    expect(notReady.status).toBe(503);
    expect(notReady.body.dependencies.database).toBe('down');
  });

  it('serves an OpenAPI 3.1 document built from the routes, and a docs page', async () => {
    const doc = (await request(app).get('/openapi.json')).body;
    expect(doc.openapi).toBe('3.1.0');
    const create = doc.paths['/api/v1/things/{id}'].post;
    expect(create.security).toEqual([{ bearerAuth: [] }]);
    expect(create.parameters).toEqual([expect.objectContaining({ name: 'id', in: 'path', required: true })]);
    expect(create.requestBody.content['application/json'].schema.properties.size.type).toBe('integer');
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(['201', '400', '401', '403']));
    const docs = await request(app).get('/docs');
    expect(docs.status).toBe(200);
    expect(docs.text).toContain('swagger-ui-bundle.js');
    expect((await request(app).get('/docs/assets/swagger-ui-bundle.js')).status).toBe(200);
  });

  it('serves Prometheus metrics', async () => {
    const res = await request(app).get('/metrics');
    expect(res.text).toContain('http_request_duration_seconds');
  });
});

describe('answerClientErrors', () => {
  it('answers bad HTTP framing and oversized headers in the error shape', async () => {
    const { createServer } = await import('node:http');
    const { connect } = await import('node:net');
    const { answerClientErrors } = await import('./client-errors');
    const server = createServer((_req, res) => res.end('ok'));
    answerClientErrors(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const raw = (payload: string) =>
      new Promise<string>((resolve) => {
        const socket = connect(port, '127.0.0.1', () => socket.write(payload));
        let text = '';
        socket.on('data', (chunk) => (text += chunk));
        socket.on('close', () => resolve(text));
      });
    try {
      const framing = await raw('GET / HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n');
      expect(framing).toMatch(/^HTTP\/1\.1 400/);
      expect(JSON.parse(framing.slice(framing.indexOf('\r\n\r\n') + 4)).error).toMatchObject({ type: 'validation_error', code: 'invalid_request' });
      const headers = await raw(`GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
      expect(headers).toMatch(/^HTTP\/1\.1 431/);
      expect(headers).toContain('"code":"headers_too_large"');
    } finally {
      server.close();
    }
  });
});
