import { cuttableProxy, testRedisUrl } from '@platform/testing';
import { createHash, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { clientIp, startAuth, type AuthHarness } from './fixtures';

const redisProxy = () => cuttableProxy(testRedisUrl, 6379);

describe('auth refuses odd input at the contract', () => {
  let auth: AuthHarness;
  beforeAll(async () => {
    auth = await startAuth();
  });
  afterAll(() => auth.close());

  it('answers 400, not 500, to a NUL byte or a lone surrogate in the login fields, and counts no attempt', async () => {
    const username = `nul-${randomUUID().slice(0, 8)}`;
    for (const body of [
      { username, password: 'whatever-password', client_id: 'a\u0000b' },
      { username: `${username}\u0000`, password: 'whatever-password', client_id: 'c' },
      { username, password: 'whatever-password', client_id: '\ud800' },
    ]) {
      const res = await auth
        .http()
        .post('/api/v1/auth/login')
        .send({ ...body, grant_type: 'password' });
      expect(res.status).toBe(400);
      expect(res.body.error.type).toBe('validation_error');
    }
    expect(await auth.redis.exists(`auth:lockout:attempts:${createHash('sha256').update(username).digest('hex').slice(0, 32)}`)).toBe(0);
  });

  it('answers 400 to a NUL byte in /audit?userId', async () => {
    const res = await auth
      .http()
      .get('/api/v1/auth/audit?userId=a%00b')
      .set('Authorization', `Bearer ${await auth.admin()}`);
    expect(res.status).toBe(400);
    expect(res.body.error.type).toBe('validation_error');
  });
});

describe('auth with Redis unreachable', () => {
  let auth: AuthHarness;
  let proxy: Awaited<ReturnType<typeof redisProxy>>;
  beforeAll(async () => {
    proxy = await redisProxy();
    auth = await startAuth({ REDIS_URL: proxy.url });
  });
  afterAll(async () => {
    // Shutdown closes its Redis connections cleanly only once Redis is reachable again.
    if (!proxy.listening()) await proxy.restore();
    await auth.close();
    await proxy.close();
  });

  it('answers /login and /validate with 503 naming the cache, never 500', async () => {
    const token = (await auth.login(`admin-${process.pid}`, 'bootstrap-admin-password')).access_token;
    await proxy.cut();
    const login = await auth.http().post('/api/v1/auth/login').send({ username: 'someone', password: 'some-password', client_id: 'c', grant_type: 'password' });
    expect(login.status).toBe(503);
    expect(login.body.error).toMatchObject({ type: 'api_error', code: 'service_unavailable' });
    expect(JSON.stringify(login.body.error.details)).toContain('cache');
    const validate = await auth.http().post('/api/v1/auth/validate').send({ token });
    expect(validate.status).toBe(503);
    expect(JSON.stringify(validate.body.error.details)).toContain('cache');
  });
});

describe('TRUST_PROXY', () => {
  /**
   * A failed login sent from its own loopback address (127.x.y.z, one per test): the per-address
   * bucket is this test's alone, whatever other suites sharing the machine's Redis did from 127.0.0.1.
   */
  const peerAddress = () => clientIp().replace(/^10\./, '127.');
  const loginFrom = async (auth: AuthHarness, localAddress: string, forwardedFor: string): Promise<number> => {
    const server = http.createServer(auth.service.app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const body = JSON.stringify({ username: `nobody-${randomUUID().slice(0, 8)}`, password: 'wrong-password', client_id: 'c', grant_type: 'password' });
    try {
      return await new Promise<number>((resolve, reject) => {
        const { port } = server.address() as AddressInfo;
        http
          .request(
            {
              host: '127.0.0.1',
              port,
              localAddress,
              method: 'POST',
              path: '/api/v1/auth/login',
              headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor },
            },
            (res) => res.resume().on('end', () => resolve(res.statusCode ?? 0)),
          )
          .on('error', reject)
          .end(body);
      });
    } finally {
      server.close();
    }
  };

  it('believes X-Forwarded-For only from the proxies it names: with none, every client is the peer address', async () => {
    const auth = await startAuth({ TRUST_PROXY: 'false', AUTH_LOGIN_RATE_LIMIT: '1000', AUTH_LOGIN_IP_RATE_LIMIT: '2' });
    try {
      // Forged addresses do not buy fresh buckets.
      const peer = peerAddress();
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push(await loginFrom(auth, peer, clientIp()));
      expect(statuses).toEqual([401, 401, 429]);
    } finally {
      await auth.close();
    }
  });

  it('keys each client by its forwarded address behind a trusted proxy', async () => {
    const auth = await startAuth({ TRUST_PROXY: 'loopback', AUTH_LOGIN_RATE_LIMIT: '1000', AUTH_LOGIN_IP_RATE_LIMIT: '2' });
    try {
      const peer = peerAddress();
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push(await loginFrom(auth, peer, clientIp()));
      expect(statuses).toEqual([401, 401, 401]);
    } finally {
      await auth.close();
    }
  });
});
