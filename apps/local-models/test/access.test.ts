import request from 'supertest';
import { startHarness, type Harness, errorOf } from './support/harness';

const ROUTES: Array<{ method: 'get' | 'post'; path: string; permission: string; body?: object }> = [
  { method: 'get', path: '/api/tags', permission: 'models:read' },
  { method: 'get', path: '/tools', permission: 'models:read' },
  { method: 'get', path: '/api/ps', permission: 'models:read' },
  { method: 'get', path: '/usage', permission: 'models:read' },
  { method: 'post', path: '/api/show', permission: 'models:read', body: { model: 'tiny' } },
  { method: 'post', path: '/api/generate', permission: 'models:invoke', body: { model: 'tiny', stream: false } },
  { method: 'post', path: '/api/chat', permission: 'models:invoke', body: { model: 'tiny', messages: [], stream: false } },
  { method: 'post', path: '/api/embed', permission: 'models:invoke', body: { model: 'tiny', input: 'x' } },
  { method: 'post', path: '/invoke', permission: 'models:invoke', body: { tool: 'embed', input: { prompt: 'x', model: 'tiny' } } },
];

describe('access and input checks of every endpoint', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ ollama: false });
  });
  afterAll(() => h.stop());

  it.each(ROUTES)('$method $path: 401 without a token or with a bad one, 403 without $permission, 200 with it', async ({ method, path, permission, body }) => {
    const call = (authorization?: string) => {
      const test = request(h.url)[method](path);
      return (authorization ? test.set('Authorization', authorization) : test).send(body);
    };
    const anonymous = await call();
    expect(anonymous.status).toBe(401);
    expect(errorOf(anonymous.body)).toMatchObject({ type: 'authentication_error', code: 'invalid_token' });

    const expired = await call(h.issuer.bearer([permission], { expiresInSeconds: -60 }));
    expect(expired.status).toBe(401);
    expect(errorOf(expired.body).details.reason).toBe('token_expired');

    const other = await call(h.issuer.bearer(['registry:read']));
    expect(other.status).toBe(403);
    expect(errorOf(other.body)).toMatchObject({ code: 'insufficient_permissions', details: { required: permission } });

    expect((await call(h.issuer.bearer([permission]))).status).toBe(200);
    expect((await call(h.issuer.bearer(['*']))).status).toBe(200);
  });

  it('answers the version probe to any verified caller, and no one else', async () => {
    expect((await request(h.url).get('/api/version')).status).toBe(401);
    const res = await request(h.url).get('/api/version').set('Authorization', h.issuer.bearer([]));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ version: '0.12.0' });
  });

  it('rejects malformed bodies with validation errors naming the field', async () => {
    const cases: Array<[string, object, string]> = [
      ['/api/generate', { prompt: 'x' }, 'body.model'],
      ['/api/generate', { model: 'tiny', prompt: 'x', options: { temperature: 'hot' } }, 'body.options.temperature'],
      ['/api/generate', { model: 'tiny', prompt: 'x', options: { seed: 1.5 } }, 'body.options.seed'],
      ['/api/chat', { model: 'tiny', messages: [{ role: 'robot', content: 'x' }] }, 'body.messages.0.role'],
      ['/api/embed', { model: 'tiny', input: [] }, 'body.input'],
      ['/api/show', {}, 'body.model'],
      ['/api/embed', { model: 'tiny', input: Array.from({ length: 300 }, () => 'x') }, 'body.input'],
    ];
    for (const [path, body, field] of cases) {
      const res = await request(h.url).post(path).set('Authorization', h.user).send(body);
      expect([path, res.status]).toEqual([path, 400]);
      expect(errorOf(res.body).code).toBe('invalid_request');
      expect(errorOf(res.body).details.issues.map((issue: { path: string }) => issue.path)).toContain(field);
    }
    const notJson = await request(h.url).post('/api/generate').set('Authorization', h.user).set('Content-Type', 'application/json').send('{"model":');
    expect(notJson.status).toBe(400);
    const tooBig = await request(h.url)
      .post('/api/generate')
      .set('Authorization', h.user)
      .send({ model: 'tiny', prompt: 'x'.repeat(1_100_000) });
    expect(tooBig.status).toBe(413);
    expect(errorOf(tooBig.body).code).toBe('payload_too_large');
  });

  it('serves health publicly', async () => {
    const res = await request(h.url).get('/health');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'healthy', dependencies: { cache: 'up' }, backends: { embedded: { models: 1 } } });
    expect(res.body.dependencies.ollama).toBeUndefined();
  });
});

describe('rate limits', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ ollama: false, env: { LOCAL_MODELS_RATE_LIMIT: '2', LOCAL_MODELS_RATE_LIMIT_BURST: '2' } });
  });
  afterAll(() => h.stop());

  it('answers 429 with Retry-After past the limit of a caller', async () => {
    const token = h.issuer.bearer(['models:read'], { sub: `rate-${Date.now()}-${Math.random()}` });
    const first = await request(h.url).get('/api/tags').set('Authorization', token);
    expect(first.headers['x-ratelimit-limit']).toBe('2');
    await request(h.url).get('/api/tags').set('Authorization', token);
    const limited = await request(h.url).get('/api/tags').set('Authorization', token);
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBeDefined();
    expect(errorOf(limited.body).code).toBe('rate_limited');
  });
});
