import { randomUUID } from 'node:crypto';
import { decodeCompactJws } from '@platform/jwt';
import { ADMIN, startAuth, type AuthHarness } from './fixtures';

describe('password and API-key login', () => {
  let auth: AuthHarness;
  beforeAll(async () => {
    auth = await startAuth();
  });
  afterAll(() => auth.close());

  it('logs in with a password and issues an RS256 token with every claim of spec 1', async () => {
    const user = await auth.createUser(['agents:read'], ['developer']);
    const res = await auth
      .http()
      .post('/api/v1/auth/login')
      .send({ username: user.username, password: user.password, client_id: 'web', grant_type: 'password' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'api' });
    expect(res.body.refresh_token).toMatch(/^rt_/);
    const { header, payload } = decodeCompactJws(res.body.access_token);
    expect(header).toMatchObject({ alg: 'RS256', typ: 'JWT' });
    expect(typeof header.kid).toBe('string');
    expect(payload).toMatchObject({
      sub: user.id,
      iss: 'http://auth.test',
      aud: ['agent-platform'],
      scope: 'api',
      roles: ['developer'],
      permissions: ['agents:read'],
      user: { id: user.id },
      client_id: 'web',
    });
    expect((payload.exp as number) - (payload.iat as number)).toBe(3600);
    expect(payload.nbf).toBe(payload.iat);
    expect(typeof payload.jti).toBe('string');
    const audit = await auth.db.auditEvent.findFirst({ where: { userId: user.id, eventType: 'login_success' } });
    expect(audit).toMatchObject({ clientId: 'web', ip: expect.any(String), metadata: expect.objectContaining({ mfa: false }) });
  });

  it('answers a wrong password and an unknown user the same way, and audits both', async () => {
    const user = await auth.createUser();
    const wrong = await auth
      .http()
      .post('/api/v1/auth/login')
      .send({ username: user.username, password: 'not-the-password', client_id: 'web', grant_type: 'password' });
    const unknown = await auth
      .http()
      .post('/api/v1/auth/login')
      .send({ username: `${user.username}-nobody`, password: 'whatever-password', client_id: 'web', grant_type: 'password' });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body.error).toEqual(unknown.body.error);
    expect(wrong.body.error).toEqual({ type: 'authentication_error', code: 'invalid_credentials', message: 'Invalid username or password' });
    expect(await auth.db.auditEvent.count({ where: { userId: user.id, eventType: 'login_failure' } })).toBe(1);
  });

  it('rejects a malformed login body with the validation issues', async () => {
    const res = await auth.http().post('/api/v1/auth/login').send({ username: 'x', client_id: 'web', grant_type: 'client_credentials' });
    expect(res.status).toBe(400);
    expect(res.body.error.details.issues.map((issue: { path: string }) => issue.path).sort()).toEqual(['body.grant_type', 'body.password']);
  });

  it('lets a parallel burst of wrong passwords verify only up to the lock threshold', async () => {
    const user = await auth.createUser();
    const attempts = await Promise.all(
      Array.from({ length: 20 }, () =>
        auth.http().post('/api/v1/auth/login').send({ username: user.username, password: 'guess-guess', client_id: 'web', grant_type: 'password' }),
      ),
    );
    const statuses = attempts.map((res) => res.status);
    expect(statuses.filter((status) => status === 401)).toHaveLength(5);
    expect(statuses.filter((status) => status === 429)).toHaveLength(15);
    const locked = attempts.find((res) => res.status === 429)!;
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
    // Locked means locked: even the right password waits.
    const right = await auth
      .http()
      .post('/api/v1/auth/login')
      .send({ username: user.username, password: user.password, client_id: 'web', grant_type: 'password' });
    expect(right.status).toBe(429);
    expect(await auth.db.auditEvent.count({ where: { userId: user.id, eventType: 'login_failure' } })).toBe(5);
  });

  it('locks an unknown account exactly like a real one', async () => {
    const ghost = `ghost-${randomUUID()}`;
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      statuses.push(
        (await auth.http().post('/api/v1/auth/login').send({ username: ghost, password: 'guess-guess', client_id: 'web', grant_type: 'password' })).status,
      );
    }
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses.slice(5)).toEqual([429, 429]);
  });

  it('exchanges a service API key for a token with its permissions, and refuses a bad one', async () => {
    const issued = await auth
      .http()
      .post('/api/v1/auth/admin/api-keys')
      .set('Authorization', `Bearer ${await auth.admin()}`)
      .send({ service: 'registry-sync', permissions: ['registry:read'] });
    expect(issued.status).toBe(201);
    const res = await auth.http().post('/api/v1/auth/api-key').send({ api_key: issued.body.key, client_id: 'svc' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, service: 'registry-sync', permissions: ['registry:read'] });
    expect(decodeCompactJws(res.body.access_token).payload).toMatchObject({ sub: 'service:registry-sync', roles: ['service'], permissions: ['registry:read'] });
    const bad = await auth
      .http()
      .post('/api/v1/auth/api-key')
      .send({ api_key: `${issued.body.key.slice(0, -4)}AAAA`, client_id: 'svc' });
    expect(bad.status).toBe(401);
    expect(bad.body.error.code).toBe('invalid_credentials');
  });

  it('keeps only a hash of each API key and shows the secret once', async () => {
    const issued = await auth
      .http()
      .post('/api/v1/auth/admin/api-keys')
      .set('Authorization', `Bearer ${await auth.admin()}`)
      .send({ service: 'hash-check', permissions: ['mcp:read'] });
    const row = await auth.db.apiKey.findUniqueOrThrow({ where: { id: issued.body.id } });
    expect(issued.body.key).not.toContain(row.secretHash);
    const secret = issued.body.key.slice(`ap_${row.prefix}_`.length);
    expect(secret).toHaveLength(43);
    expect(JSON.stringify(row)).not.toContain(secret);
    const list = await auth
      .http()
      .get('/api/v1/auth/admin/api-keys?limit=500')
      .set('Authorization', `Bearer ${await auth.admin()}`);
    expect(list.status).toBe(200);
    expect(JSON.stringify(list.body)).not.toContain(issued.body.key);
    expect(list.body.apiKeys.find((key: { id: string }) => key.id === issued.body.id)).toMatchObject({ service: 'hash-check', permissions: ['mcp:read'] });
  });

  it('rotates an API key: the new one works, the old one stops', async () => {
    const bearer = `Bearer ${await auth.admin()}`;
    const issued = await auth
      .http()
      .post('/api/v1/auth/admin/api-keys')
      .set('Authorization', bearer)
      .send({ service: 'rotating', permissions: ['mcp:read'] });
    const rotated = await auth.http().post(`/api/v1/auth/admin/api-keys/${issued.body.id}/rotate`).set('Authorization', bearer).send({});
    expect(rotated.status).toBe(201);
    expect(rotated.body).toMatchObject({ service: 'rotating', rotatedFrom: issued.body.id });
    expect((await auth.http().post('/api/v1/auth/api-key').send({ api_key: issued.body.key, client_id: 'svc' })).status).toBe(401);
    expect((await auth.http().post('/api/v1/auth/api-key').send({ api_key: rotated.body.key, client_id: 'svc' })).status).toBe(200);
    const revoked = await auth.http().delete(`/api/v1/auth/admin/api-keys/${rotated.body.id}`).set('Authorization', bearer);
    expect(revoked.status).toBe(204);
    expect((await auth.http().post('/api/v1/auth/api-key').send({ api_key: rotated.body.key, client_id: 'svc' })).status).toBe(401);
    expect((await auth.http().delete(`/api/v1/auth/admin/api-keys/${rotated.body.id}`).set('Authorization', bearer)).status).toBe(404);
  });

  it('guards user and key administration: 401 without a token, 403 without auth:admin, 409 on a taken name', async () => {
    const body = { username: `dup-${randomUUID().slice(0, 12)}`, password: 'a-long-enough-password' };
    expect((await auth.http().post('/api/v1/auth/admin/users').send(body)).status).toBe(401);
    const plain = await auth.createUser(['agents:read']);
    const plainToken = (await auth.login(plain.username, plain.password)).access_token;
    const denied = await auth
      .http()
      .post('/api/v1/auth/admin/api-keys')
      .set('Authorization', `Bearer ${plainToken}`)
      .send({ service: 'x', permissions: ['a:b'] });
    expect(denied.status).toBe(403);
    expect(denied.body.error.details).toEqual({ required: 'auth:admin', userPermissions: ['agents:read'] });
    const bearer = `Bearer ${await auth.admin()}`;
    expect((await auth.http().post('/api/v1/auth/admin/users').set('Authorization', bearer).send(body)).status).toBe(201);
    expect((await auth.http().post('/api/v1/auth/admin/users').set('Authorization', bearer).send(body)).status).toBe(409);
    const weak = await auth.http().post('/api/v1/auth/admin/users').set('Authorization', bearer).send({ username: 'weakling', password: 'short' });
    expect(weak.status).toBe(400);
    const listed = await auth.http().get('/api/v1/auth/admin/users?limit=1').set('Authorization', bearer);
    expect(listed.body).toMatchObject({ limit: 1, offset: 0, total: expect.any(Number) });
    expect(listed.body.users[0]).not.toHaveProperty('passwordHash');
  });

  it('stores passwords with a memory-hard hash', async () => {
    const row = await auth.db.user.findUniqueOrThrow({ where: { username: ADMIN.username } });
    expect(row.passwordHash).toMatch(/^scrypt\$32768\$8\$1\$/);
  });
});

describe('login rate limits (spec 1: 10 per 15 minutes)', () => {
  let auth: AuthHarness;
  beforeAll(async () => {
    auth = await startAuth({ AUTH_LOGIN_RATE_LIMIT: '10', AUTH_VALIDATE_RATE_LIMIT: '3', AUTH_REFRESH_RATE_LIMIT: '2' });
  });
  afterAll(() => auth.close());

  it('counts down X-RateLimit-Remaining and answers 429 with Retry-After past the limit', async () => {
    const http = auth.http();
    const answers = [];
    for (let i = 0; i < 11; i++) {
      answers.push(
        await http
          .post('/api/v1/auth/login')
          .send({ username: `nobody-${i}-${Date.now()}`, password: 'whatever-pw', client_id: 'web', grant_type: 'password' }),
      );
    }
    expect(answers[0]!.headers['x-ratelimit-limit']).toBe('10');
    expect(answers.slice(0, 10).map((res) => res.headers['x-ratelimit-remaining'])).toEqual(['9', '8', '7', '6', '5', '4', '3', '2', '1', '0']);
    const reset = Number(answers[0]!.headers['x-ratelimit-reset']);
    expect(reset).toBeGreaterThan(Date.now() / 1000);
    expect(reset).toBeLessThanOrEqual(Date.now() / 1000 + 15 * 60 + 1);
    const limited = answers[10]!;
    expect(limited.status).toBe(429);
    expect(limited.body.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limited' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('limits validation and refresh on their own counters', async () => {
    const http = auth.http();
    const validate = [];
    for (let i = 0; i < 4; i++) validate.push((await http.post('/api/v1/auth/validate').send({ token: 'not-a-token' })).status);
    expect(validate).toEqual([200, 200, 200, 429]);
    const refresh = [];
    for (let i = 0; i < 3; i++)
      refresh.push((await http.post('/api/v1/auth/refresh').send({ refresh_token: 'rt_unknown', grant_type: 'refresh_token' })).status);
    expect(refresh).toEqual([401, 401, 429]);
  });
});
