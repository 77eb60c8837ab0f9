import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { clientIp, startAuth, type AuthHarness } from './fixtures';

describe('auth under bursts', () => {
  let auth: AuthHarness;
  beforeAll(async () => {
    auth = await startAuth();
  });
  afterAll(() => auth.close());

  it('creates one user when six requests race for one username: one 201, five 409', async () => {
    const body = { username: `race-${randomUUID().slice(0, 12)}`, password: 'a-long-enough-password' };
    const bearer = `Bearer ${await auth.admin()}`;
    const answers = await Promise.all(Array.from({ length: 6 }, () => auth.http().post('/api/v1/auth/admin/users').set('Authorization', bearer).send(body)));
    expect(answers.map((res) => res.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    for (const res of answers.filter((answer) => answer.status === 409)) expect(res.body.error.type).toBe('conflict_error');
    expect(await auth.db.user.count({ where: { username: body.username } })).toBe(1);
  });
});

describe('password work under a burst', () => {
  let auth: AuthHarness;
  beforeAll(async () => {
    auth = await startAuth({ AUTH_PASSWORD_HASH_CONCURRENCY: '1', AUTH_PASSWORD_HASH_QUEUE: '2' });
  });
  afterAll(() => auth.close());

  it('hashes a bounded number of passwords at once and refuses the rest with 503 and Retry-After, never counting them', async () => {
    const attempts = Array.from({ length: 30 }, () => ({ username: `burst-${randomUUID().slice(0, 12)}`, password: 'wrong-password', client_id: 'c' }));
    const since = new Date(Date.now() - 1000);
    const answers = await Promise.all(
      attempts.map((body) =>
        request(auth.service.app)
          .post('/api/v1/auth/login')
          .set('X-Forwarded-For', clientIp())
          .send({ ...body, grant_type: 'password' }),
      ),
    );
    const statuses = answers.map((res) => res.status);
    expect(statuses.every((status) => status === 401 || status === 503)).toBe(true);
    expect(statuses.filter((status) => status === 401).length).toBeGreaterThanOrEqual(3); // one running, two waiting
    const refused = answers.filter((res) => res.status === 503);
    expect(refused.length).toBeGreaterThan(0);
    for (const res of refused) {
      expect(res.headers['retry-after']).toBe('1');
      expect(res.body.error).toMatchObject({ type: 'api_error', code: 'service_unavailable', details: { busy: 'password hashing' } });
    }
    // A refused attempt never reached the password check: no failure is audited for it.
    const refusedNames = attempts.filter((_, i) => statuses[i] === 503).map((body) => body.username);
    const audited = await auth.db.auditEvent.findMany({ where: { eventType: 'login_failure', timestamp: { gte: since } }, select: { metadata: true } });
    const auditedNames = new Set(audited.map((event) => (event.metadata as { username?: string }).username));
    expect(refusedNames.filter((name) => auditedNames.has(name))).toEqual([]);
  });
});

describe('login limits per account as well as per address', () => {
  let auth: AuthHarness;
  beforeAll(async () => {
    auth = await startAuth({ AUTH_LOGIN_RATE_LIMIT: '3', AUTH_LOGIN_IP_RATE_LIMIT: '5' });
  });
  afterAll(() => auth.close());

  const loginFrom = (ip: string, username: string, password: string) =>
    request(auth.service.app).post('/api/v1/auth/login').set('X-Forwarded-For', ip).send({ username, password, client_id: 'c', grant_type: 'password' });

  it('limits one account attacked from many addresses, and leaves other accounts alone', async () => {
    const target = await auth.createUser();
    const other = await auth.createUser();
    const statuses: number[] = [];
    // The same account under another spelling: the lockout and the limit count it as one.
    for (let i = 0; i < 3; i++) statuses.push((await loginFrom(clientIp(), i === 0 ? target.username.toUpperCase() : target.username, target.password)).status);
    expect(statuses).toEqual([401, 200, 200]);
    const limited = await loginFrom(clientIp(), target.username, target.password);
    expect(limited.status).toBe(429);
    expect(limited.headers['x-ratelimit-limit']).toBe('3');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect((await loginFrom(clientIp(), other.username, other.password)).status).toBe(200);
  });

  it('still limits one address trying many accounts, and announces the bucket nearer its end', async () => {
    const ip = clientIp();
    const first = await loginFrom(ip, `nobody-${randomUUID().slice(0, 8)}`, 'wrong-password');
    expect(first.status).toBe(401);
    expect(first.headers).toMatchObject({ 'x-ratelimit-limit': '3', 'x-ratelimit-remaining': '2' });
    for (let i = 0; i < 4; i++) expect((await loginFrom(ip, `nobody-${randomUUID().slice(0, 8)}`, 'wrong-password')).status).toBe(401);
    const limited = await loginFrom(ip, `nobody-${randomUUID().slice(0, 8)}`, 'wrong-password');
    expect(limited.status).toBe(429);
    expect(limited.headers['x-ratelimit-limit']).toBe('5');
  });
});
