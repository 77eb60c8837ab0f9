import { cuttableProxy, type CuttableProxy } from '@platform/testing';
import { authTestDatabaseUrl } from './database';
import { ADMIN, startAuth, type AuthHarness } from './fixtures';

/**
 * Issue 27: with Postgres silent, /login answered nothing in 90 s while every other route answered
 * 503 in ~5 s. A query sent on an open connection to a silent Postgres had no deadline, and the
 * whole login held a password-work slot meanwhile, so the logins behind it waited too.
 */
describe('auth with Postgres silent', () => {
  let proxy: CuttableProxy;
  let auth: AuthHarness;
  beforeAll(async () => {
    proxy = await cuttableProxy(authTestDatabaseUrl(), 5432);
    // One password slot: a login that held it through a silent query would stall the ones behind it.
    auth = await startAuth({ DATABASE_URL: proxy.url, AUTH_PASSWORD_HASH_CONCURRENCY: '1' });
  });
  afterAll(async () => {
    await proxy.restore(); // shutdown closes its connections once Postgres answers again
    await auth.close();
    await proxy.close();
  });

  const login = (user: { username: string; password: string }) =>
    auth
      .http()
      .post('/api/v1/auth/login')
      // A bound far past the 5 s query deadline, and far below what stalled logins took (one deadline each, in turn).
      .timeout(15_000)
      .send({ username: user.username, password: user.password, client_id: 'c', grant_type: 'password' });

  it('answers every /login with 503 naming the database, as other routes do, and logs in again once it is back', async () => {
    const admin = await auth.login(ADMIN.username, ADMIN.password);
    const user = await auth.createUser();
    proxy.silence();

    const answers = await Promise.all([login(user), login(user), login(user), login({ username: 'nobody-here', password: 'whatever-password' })]);
    for (const res of answers) {
      expect(res.status).toBe(503);
      expect(res.body.error).toMatchObject({ type: 'api_error', code: 'service_unavailable', details: { dependency: 'database' } });
    }

    const users = await auth.http().get('/api/v1/auth/admin/users').timeout(15_000).set('Authorization', `Bearer ${admin.access_token}`);
    expect(users.status).toBe(503);
    expect(users.body.error.details).toEqual({ dependency: 'database' });

    await proxy.restore();
    const again = await login(user);
    expect(again.status).toBe(200);
  }, 60_000);
});
