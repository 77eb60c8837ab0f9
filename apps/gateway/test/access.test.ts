import { uniqueName } from '@platform/testing';
import { Redis } from 'ioredis';
import request from 'supertest';
import { manifest, startGateway, type Gateway } from './harness';

describe('API keys and the per-key rate limit', () => {
  let g: Gateway;
  beforeAll(async () => {
    // The bucket holds 1,500 (the burst) and refills at 1,000 per window; a one-day window keeps
    // the refill during the test under one request, so the burst's edge is exact.
    g = await startGateway({ GATEWAY_RATE_WINDOW: '86400' });
  });
  afterAll(() => g.stop());

  it('exchanges an X-API-Key with auth once and caches the token by the key hash', async () => {
    const key = `pk_${uniqueName('key')}_secret`;
    g.fakes.apiKeys.set(key, { sub: uniqueName('svc'), permissions: ['agents:read'] });
    const before = g.fakes.auth.calls('POST', '/api/v1/auth/api-key').length;
    for (let i = 0; i < 3; i++) {
      const answer = await request(g.app).get('/api/v1/agents').set('X-API-Key', key);
      expect(answer.status).toBe(200);
      expect(answer.headers['x-ratelimit-limit']).toBe('1500');
    }
    const bearer = await request(g.app).get('/api/v1/agents').set('Authorization', `Bearer ${key}`);
    expect(bearer.status).toBe(200);
    const exchanges = g.fakes.auth.calls('POST', '/api/v1/auth/api-key').slice(before);
    expect(exchanges).toHaveLength(1);
    expect(exchanges[0].body).toEqual({ api_key: key, client_id: 'gateway' });
    // The key's token carries its permissions: a write is refused.
    const write = await request(g.app).post('/api/v1/agents').set('X-API-Key', key).send({ manifest: {} });
    expect(write.status).toBe(403);
  });

  it('answers 401 for a key auth refuses and 503 naming auth when auth is down', async () => {
    const refused = await request(g.app).get('/api/v1/agents').set('X-API-Key', 'pk_not_a_real_key');
    expect(refused.status).toBe(401);
    expect(refused.body.error).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key' });
    expect(refused.headers['x-ratelimit-remaining']).toBeDefined();
    g.fakes.auth.fail('POST', '^/api/v1/auth/api-key', 500);
    try {
      const down = await request(g.app).get('/api/v1/agents').set('X-API-Key', 'pk_another_key_here');
      expect(down.status).toBe(503);
      expect(down.body.error).toMatchObject({ code: 'service_unavailable', details: { service: 'auth' } });
    } finally {
      g.fakes.auth.failures.clear();
    }
  });

  it('answers invalid_api_key, not token_missing, for a key not shaped like one (README)', async () => {
    const before = g.fakes.auth.calls('POST', '/api/v1/auth/api-key').length;
    for (const key of ['bad', '', 'a key with spaces', 'x'.repeat(300)]) {
      const answer = await request(g.app).get('/api/v1/agents').set('X-API-Key', key);
      expect(answer.status).toBe(401);
      expect(answer.body.error).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key', details: { reason: 'invalid_api_key' } });
      expect(answer.headers['x-ratelimit-remaining']).toBeDefined();
    }
    const asBearer = await request(g.app).get('/api/v1/agents').set('Authorization', 'Bearer bad');
    expect(asBearer.status).toBe(401);
    expect(asBearer.body.error.code).toBe('invalid_api_key');
    // Refused at the door: auth is not asked about a key it could never have issued.
    expect(g.fakes.auth.calls('POST', '/api/v1/auth/api-key')).toHaveLength(before);
  });

  it('sets X-RateLimit-* on every answer, 401s included, and never on health', async () => {
    const anonymous = await request(g.app).get('/api/v1/agents');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers['x-ratelimit-limit']).toBe('1500');
    const health = await request(g.app).get('/health/live');
    expect(health.headers['x-ratelimit-limit']).toBeUndefined();
  });

  it('refuses exactly request 1,501 of a burst with 429, Retry-After and truthful headers', async () => {
    const key = `pk_${uniqueName('burst')}_secret`;
    g.fakes.apiKeys.set(key, { sub: uniqueName('burst'), permissions: ['agents:read'] });
    const statuses: number[] = [];
    const remaining: number[] = [];
    for (let sent = 0; sent < 1500; sent += 50) {
      const batch = await Promise.all(Array.from({ length: 50 }, () => request(g.app).get('/api/v1/agents?limit=1').set('X-API-Key', key)));
      for (const answer of batch) {
        statuses.push(answer.status);
        remaining.push(Number(answer.headers['x-ratelimit-remaining']));
      }
    }
    expect(statuses.filter((status) => status === 200)).toHaveLength(1500);
    expect(remaining.at(-1)).toBe(0);
    expect(Math.max(...remaining)).toBe(1499);
    const refused = await request(g.app).get('/api/v1/agents?limit=1').set('X-API-Key', key);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limited' });
    expect(refused.headers['x-ratelimit-limit']).toBe('1500');
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000);
    // Another user's bucket is untouched.
    const other = await request(g.app)
      .get('/api/v1/agents?limit=1')
      .set('Authorization', g.issuer.bearer(['agents:read']));
    expect(other.status).toBe(200);
    // 1,501 requests through Postgres: minutes on a loaded two-core machine.
  }, 180_000);
});

describe("agents' replies and the per-address limit", () => {
  let g: Gateway;
  beforeAll(async () => {
    // A bucket of 2 per address with no refill to speak of, on a Redis database of its own (the
    // address bucket of 127.0.0.1 is shared by every gateway of the test run on database 0).
    const redisUrl = 'redis://127.0.0.1:6379/13';
    const redis = new Redis(redisUrl);
    await redis.flushdb();
    redis.disconnect();
    g = await startGateway({ REDIS_URL: redisUrl, GATEWAY_RATE_BURST: '2', GATEWAY_RATE_LIMIT: '1', GATEWAY_RATE_WINDOW: '86400' });
  });
  afterAll(() => g.stop());

  it("an agent's reply is taken even when its address has used up its requests", async () => {
    const sub = uniqueName('owner');
    const owner = g.issuer.bearer(['agents:read', 'agents:write'], { sub });
    const created = await request(g.app)
      .post('/api/v1/agents')
      .set('Authorization', owner)
      .send({ manifest: manifest(), deployment: { endpoint: 'http://10.0.0.9:8080' } });
    expect(created.status).toBe(201);
    // The agent replies from 127.0.0.1, whose bucket these anonymous calls empty.
    const address = g.service.url;
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await fetch(`${address}/api/v1/agents`)).status);
    expect(statuses).toEqual([401, 401, 429]);

    // Running an agent is for its owner (or a team editor, or agents:admin): the owner, with another token.
    const executor = g.issuer.bearer(['agents:execute'], { sub });
    const executed = await request(g.app)
      .post(`/api/v1/agents/${created.body.id}/execute`)
      .set('Authorization', executor)
      .send({ input: { text: 'hi' }, timeout_ms: 5000 });
    expect(executed.status).toBe(200);
    expect(executed.body).toMatchObject({ status: 'completed', output: { echo: { text: 'hi' } } });
  });
});
