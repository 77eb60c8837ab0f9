import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadAuthConfig } from '../src/service';
import { startAuth, type AuthHarness } from './fixtures';

/** Rows of the spec's endpoint list for one service: [method, path]. */
function specEndpoints(service: string): Array<[string, string]> {
  const file = path.join(__dirname, '../../../docs/spec/endpoints.tsv');
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith(`${service}\t`))
    .map((line) => line.split('\t').slice(1, 3) as [string, string]);
}

describe('the auth service', () => {
  let auth: AuthHarness;
  beforeAll(async () => {
    auth = await startAuth();
  });
  afterAll(() => auth.close());

  it('documents every endpoint of the spec in its OpenAPI 3.1 document', async () => {
    const doc = (await auth.http().get('/openapi.json')).body;
    expect(doc.openapi).toBe('3.1.0');
    const endpoints = specEndpoints('auth');
    expect(endpoints).toHaveLength(11);
    for (const [method, route] of endpoints) {
      expect({ route, method, documented: Boolean(doc.paths[route]?.[method.toLowerCase()]) }).toEqual({ route, method, documented: true });
    }
  });

  it('reports health with its real dependencies', async () => {
    const res = await auth.http().get('/health');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'healthy', version: '1.0.0', dependencies: { database: 'up', cache: 'up' } });
    expect((await auth.http().get('/health/ready')).status).toBe(200);
    expect((await auth.http().get('/health/live')).status).toBe(200);
  });

  it('answers an unknown route with 404 in the error shape', async () => {
    const res = await auth.http().get('/api/v1/auth/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ error: { type: 'not_found_error', code: 'route_not_found' }, requestId: expect.any(String) });
  });

  it('lets admins query the audit log by user, type and time, paged; others are refused', async () => {
    const user = await auth.createUser();
    await auth.login(user.username, user.password);
    await auth.login(user.username, user.password);
    const bearer = `Bearer ${await auth.admin()}`;
    const from = new Date(Date.now() - 60_000).toISOString();
    const res = await auth.http().get(`/api/v1/auth/audit?userId=${user.id}&eventType=login_success&from=${from}&limit=1`).set('Authorization', bearer);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 2, limit: 1, offset: 0 });
    expect(res.body.events).toHaveLength(1);
    expect(res.body.events[0]).toMatchObject({
      eventType: 'login_success',
      userId: user.id,
      clientId: 'test-client',
      ip: expect.any(String),
      userAgent: null,
      metadata: { mfa: false },
    });
    const future = await auth
      .http()
      .get(`/api/v1/auth/audit?userId=${user.id}&from=${new Date(Date.now() + 60_000).toISOString()}`)
      .set('Authorization', bearer);
    expect(future.body.total).toBe(0);
    expect((await auth.http().get('/api/v1/auth/audit?from=yesterday').set('Authorization', bearer)).status).toBe(400);
    const token = (await auth.login(user.username, user.password)).access_token;
    expect((await auth.http().get('/api/v1/auth/audit').set('Authorization', `Bearer ${token}`)).status).toBe(403);
  });
});

describe('auth configuration', () => {
  it('names the variable that is wrong', () => {
    expect(() => loadAuthConfig({ AUTH_ACCESS_TOKEN_TTL: 'an hour' })).toThrow(/AUTH_ACCESS_TOKEN_TTL/);
    expect(() => loadAuthConfig({ AUTH_ROLE_MAPPINGS: '{not json' })).toThrow(/AUTH_ROLE_MAPPINGS/);
  });

  it('requires an encryption key in production', () => {
    expect(() => loadAuthConfig({ NODE_ENV: 'production' })).toThrow(/AUTH_ENCRYPTION_KEY/);
    expect(loadAuthConfig({ NODE_ENV: 'production', AUTH_ENCRYPTION_KEY: 'a'.repeat(64) }).NODE_ENV).toBe('production');
  });
});

describe('the worker role', () => {
  it('serves /health/live and /health/ready on its port, and no API', async () => {
    const worker = await startAuth({ SERVICE_ROLE: 'worker' });
    try {
      expect((await worker.http().get('/health/live')).status).toBe(200);
      expect((await worker.http().get('/health/ready')).status).toBe(200);
      expect((await worker.http().post('/api/v1/auth/validate').send({ token: 'x' })).status).toBe(404);
    } finally {
      await worker.close();
    }
  });
});
