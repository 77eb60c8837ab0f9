import { startService } from '@platform/service-kit';
import { spawnService, startPrivateRedis, testDatabaseUrl, uniqueName, type ServiceProcess } from '@platform/testing';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import path from 'node:path';
import request from 'supertest';
import { gatewayService } from '../src/service';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The real OpenID provider of auth's own OAuth tests (the oidc-provider package), as a child process. */
async function startIdentityProvider(redirectUri: string): Promise<{ issuer: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [path.join(__dirname, '../../auth/test/idp/oidc-provider.mjs')], {
    env: { ...process.env, REDIRECT_URI: redirectUri },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const issuer = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`identity provider exited with ${code}`)));
    child.stdout!.once('data', (chunk: Buffer) => resolve(JSON.parse(chunk.toString().split('\n')[0]!).issuer));
  });
  return { issuer, child };
}

/** The browser at the identity provider: follows its redirects with its cookies until it is sent back to `until`. */
async function signInAtProvider(authorizationUrl: string, until: string): Promise<string> {
  const cookies = new Map<string, string>();
  let next = authorizationUrl;
  for (let hop = 0; hop < 10; hop++) {
    if (next.startsWith(until)) return next;
    const response = await fetch(next, { redirect: 'manual', headers: { cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; ') } });
    for (const header of response.headers.getSetCookie()) {
      const [pair] = header.split(';');
      const [name, ...value] = pair!.split('=');
      cookies.set(name!.trim(), value.join('='));
    }
    const location = response.headers.get('location');
    if (!location) throw new Error(`the provider stopped at ${next} with ${response.status}: ${await response.text()}`);
    next = new URL(location, next).toString();
  }
  throw new Error('too many redirects at the identity provider');
}

/** A cookie of a response: its value and attributes. */
function cookieOf(setCookie: string[] | string | undefined, name: string): { value: string; attributes: string[] } | undefined {
  const all = Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : [];
  const line = all.find((header) => header.startsWith(`${name}=`));
  if (!line) return undefined;
  const [pair, ...attributes] = line.split(';').map((part) => part.trim());
  return { value: decodeURIComponent(pair!.slice(name.length + 1)), attributes };
}

/**
 * The console's session at the gateway (backend-for-frontend) against the real auth service, run
 * as its own process, and a real OpenID provider: the refresh token lives only in the cookie,
 * rotation and revocation happen at auth, and every state-changing call must come from the console.
 */
describe('the console session /api/v1/console', () => {
  let auth: ServiceProcess;
  let gateway: { stop: () => Promise<void> };
  let redis: { url: string; stop: () => Promise<void> };
  let idp: { issuer: string; child: ChildProcess };
  let origin: string;
  const provider = `idp-${randomUUID().slice(0, 8)}`;
  const admin = { username: uniqueName('gw-admin'), password: `pw-${randomUUID()}` };
  const user = { username: uniqueName('console-user'), password: `pw-${randomUUID()}` };

  beforeAll(async () => {
    redis = await startPrivateRedis();
    const authPort = await freePort();
    const authUrl = `http://127.0.0.1:${authPort}`;
    auth = await spawnService('auth', {
      env: {
        PORT: String(authPort),
        AUTH_PUBLIC_URL: authUrl,
        REDIS_URL: redis.url,
        DATABASE_URL: testDatabaseUrl,
        AUTH_ADMIN_USERNAME: admin.username,
        AUTH_ADMIN_PASSWORD: admin.password,
        AUTH_REFRESH_REUSE_GRACE: '0',
        AUTH_LOGIN_RATE_LIMIT: '1000',
        AUTH_REFRESH_RATE_LIMIT: '1000',
      },
      timeoutMs: 90_000,
    });
    const gatewayPort = await freePort();
    origin = `http://127.0.0.1:${gatewayPort}`;
    const callback = `${origin}/api/v1/console/oauth/${provider}/callback`;
    idp = await startIdentityProvider(callback);

    const adminToken = (
      await request(authUrl)
        .post('/api/v1/auth/login')
        .send({ grant_type: 'password', client_id: 'test', ...admin })
    ).body.access_token as string;
    const created = await request(authUrl)
      .post('/api/v1/auth/admin/users')
      .set('Authorization', `Bearer ${adminToken}`)
      .send({ ...user, roles: ['user'], permissions: ['agents:read', 'mcp:read'] });
    expect(created.status).toBe(201);
    const configured = await request(authUrl)
      .post('/api/v1/auth/oauth/configure')
      .set('Authorization', `Bearer ${adminToken}`)
      .send({
        provider,
        config: {
          authorizationURL: `${idp.issuer}/auth`,
          tokenURL: `${idp.issuer}/token`,
          userInfoURL: `${idp.issuer}/me`,
          clientID: 'platform-test-client',
          clientSecret: 'platform-test-secret',
          callbackURL: callback,
          scopes: ['openid', 'profile', 'email', 'groups', 'offline_access'],
        },
      });
    expect(configured.status).toBe(200);

    gateway = await startService(gatewayService, {
      env: {
        PORT: String(gatewayPort),
        GATEWAY_PUBLIC_URL: origin,
        AUTH_URL: authUrl,
        LOG_LEVEL: 'silent',
        DATABASE_URL: testDatabaseUrl,
        REDIS_URL: redis.url,
        SERVICE_ROLE: 'api',
        GATEWAY_CONSOLE_OAUTH_PROVIDERS: `${provider},elsewhere`,
      },
    });
  }, 120_000);
  afterAll(async () => {
    idp?.child.kill();
    await gateway?.stop();
    await auth?.stop();
    await redis?.stop();
  });

  const fromConsole = () => ({
    post: (path: string) => request(origin).post(path).set('X-Platform-Console', '1').set('Origin', origin),
    delete: (path: string) => request(origin).delete(path).set('X-Platform-Console', '1').set('Origin', origin),
  });
  const signIn = () => fromConsole().post('/api/v1/console/session').send(user);
  const refresh = (cookie?: string) => {
    const call = fromConsole().post('/api/v1/console/session/refresh');
    return cookie ? call.set('Cookie', `platform_session=${encodeURIComponent(cookie)}`) : call;
  };

  it('signs in: the access token and user in the body, the refresh token only in a strict HttpOnly cookie', async () => {
    const res = await signIn();
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({
      accessToken: expect.any(String),
      tokenType: 'Bearer',
      expiresIn: expect.any(Number),
      user: { id: expect.any(String), username: user.username, roles: ['user'], permissions: ['agents:read', 'mcp:read'], teams: [] },
    });
    const cookie = cookieOf(res.headers['set-cookie'], 'platform_session')!;
    expect(cookie.value.length).toBeGreaterThan(20);
    expect(cookie.attributes).toEqual(expect.arrayContaining(['HttpOnly', 'Secure', 'SameSite=Strict', 'Path=/api/v1/console']));
    expect(cookie.attributes.some((attribute) => attribute.startsWith('Max-Age='))).toBe(true);
    expect(JSON.stringify(res.body)).not.toContain(cookie.value);
    // The access token is auth's: a service takes it through the pass-through.
    const validated = await request(origin).post('/api/v1/platform/auth/api/v1/auth/validate').send({ token: res.body.accessToken });
    expect(validated.body).toMatchObject({ valid: true, payload: { permissions: ['agents:read', 'mcp:read'] } });
  });

  it("keeps auth's refusal of a wrong password: 401, no cookie", async () => {
    const res = await fromConsole().post('/api/v1/console/session').send({ username: user.username, password: 'not-the-password' });
    expect(res.status).toBe(401);
    expect(res.body.error).toMatchObject({ type: 'authentication_error', code: 'invalid_credentials' });
    expect(res.headers['set-cookie']).toBeUndefined();
    const invalid = await fromConsole().post('/api/v1/console/session').send({ username: user.username });
    expect(invalid.status).toBe(400);
  });

  it('refreshes by rotation: a new token and cookie, and the old cookie no longer works', async () => {
    const first = cookieOf((await signIn()).headers['set-cookie'], 'platform_session')!.value;
    const rotated = await refresh(first);
    expect(rotated.status).toBe(200);
    expect(rotated.body).toMatchObject({ tokenType: 'Bearer', user: { username: user.username } });
    const second = cookieOf(rotated.headers['set-cookie'], 'platform_session')!.value;
    expect(second).not.toBe(first);
    const replayed = await refresh(first);
    expect(replayed.status).toBe(401);
    expect(cookieOf(replayed.headers['set-cookie'], 'platform_session')?.value).toBe('');
    expect((await refresh()).status).toBe(401);
  });

  it('signs out: revoked at auth, the cookie cleared, a refresh afterwards 401', async () => {
    const signedIn = await signIn();
    const cookie = cookieOf(signedIn.headers['set-cookie'], 'platform_session')!.value;
    const out = await fromConsole()
      .delete('/api/v1/console/session')
      .set('Cookie', `platform_session=${encodeURIComponent(cookie)}`);
    expect(out.status).toBe(204);
    expect(cookieOf(out.headers['set-cookie'], 'platform_session')).toMatchObject({ value: '', attributes: expect.arrayContaining(['Path=/api/v1/console']) });
    expect((await refresh(cookie)).status).toBe(401);
    // The access token the console held dies with the session.
    const validated = await request(origin).post('/api/v1/platform/auth/api/v1/auth/validate').send({ token: signedIn.body.accessToken });
    expect(validated.body).toMatchObject({ valid: false, error: 'token_revoked' });
    expect((await fromConsole().delete('/api/v1/console/session')).status).toBe(401);
  });

  it('refuses state-changing calls without the console header or from another origin: 403 csrf_rejected', async () => {
    const noHeader = await request(origin).post('/api/v1/console/session').set('Origin', origin).send(user);
    expect(noHeader.status).toBe(403);
    expect(noHeader.body.error).toMatchObject({ type: 'authorization_error', code: 'csrf_rejected' });
    const foreign = await request(origin).post('/api/v1/console/session').set('X-Platform-Console', '1').set('Origin', 'https://evil.example').send(user);
    expect(foreign.status).toBe(403);
    expect(foreign.body.error.code).toBe('csrf_rejected');
    expect(foreign.headers['set-cookie']).toBeUndefined();
    const logout = await request(origin).delete('/api/v1/console/session').set('Origin', 'https://evil.example').set('X-Platform-Console', '1');
    expect(logout.status).toBe(403);
    // Outside production the console's dev server (Vite, proxying to the gateway) is a console origin too.
    const devServer = await request(origin)
      .post('/api/v1/console/session')
      .set('X-Platform-Console', '1')
      .set('Origin', 'http://127.0.0.1:4200')
      .send({ username: user.username, password: 'not-the-password' });
    expect(devServer.status).toBe(401);
  });

  it('lists the identity providers it offers', async () => {
    const res = await request(origin).get('/api/v1/console/providers');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      providers: [
        { name: provider, url: `/api/v1/console/oauth/${provider}` },
        { name: 'elsewhere', url: '/api/v1/console/oauth/elsewhere' },
      ],
    });
    expect((await request(origin).get('/api/v1/console/oauth/unknown')).status).toBe(404);
  });

  it('signs in through the identity provider: PKCE at auth, the session cookie set on the way back to /', async () => {
    const start = await request(origin).get(`/api/v1/console/oauth/${provider}`);
    expect(start.status).toBe(302);
    const location = new URL(start.headers.location!);
    expect(`${location.origin}${location.pathname}`).toBe(`${idp.issuer}/auth`);
    expect(location.searchParams.get('code_challenge_method')).toBe('S256');
    const state = cookieOf(start.headers['set-cookie'], 'platform_oauth')!;
    expect(state.attributes).toEqual(expect.arrayContaining(['HttpOnly', 'Secure', 'SameSite=Lax', 'Path=/api/v1/console/oauth']));
    expect(location.searchParams.get('state')).toBe(state.value);

    await fetch(`${idp.issuer}/test/account/alice`, { method: 'POST' });
    const back = new URL(await signInAtProvider(start.headers.location!, `${origin}/api/v1/console/oauth/${provider}/callback`));

    // Another browser (without the state cookie) cannot finish it: no login CSRF.
    const stranger = await request(origin).get(`${back.pathname}${back.search}`);
    expect(stranger.status).toBe(302);
    expect(stranger.headers.location).toBe('/?oauth_error=csrf_rejected');
    expect(cookieOf(stranger.headers['set-cookie'], 'platform_session')).toBeUndefined();

    const done = await request(origin).get(`${back.pathname}${back.search}`).set('Cookie', `platform_oauth=${state.value}`);
    expect(done.status).toBe(302);
    expect(done.headers.location).toBe('/');
    const session = cookieOf(done.headers['set-cookie'], 'platform_session')!;
    expect(session.attributes).toEqual(expect.arrayContaining(['HttpOnly', 'Secure', 'SameSite=Strict', 'Path=/api/v1/console']));
    const refreshed = await refresh(session.value);
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.user).toMatchObject({ username: expect.stringMatching(/^alice/), roles: expect.arrayContaining(['admin']), permissions: ['*'] });

    // The state is used once.
    const replay = await request(origin).get(`${back.pathname}${back.search}`).set('Cookie', `platform_oauth=${state.value}`);
    expect(replay.headers.location).toBe('/?oauth_error=csrf_rejected');
  });

  // Last: it stops auth.
  it('answers 503 naming auth when auth is down, and keeps the cookie for later', async () => {
    const cookie = cookieOf((await signIn()).headers['set-cookie'], 'platform_session')!.value;
    await auth.stop();
    const down = await signIn();
    expect(down.status).toBe(503);
    expect(down.body.error).toMatchObject({ code: 'dependency_unavailable', details: { dependency: 'auth' } });
    const refreshed = await refresh(cookie);
    expect(refreshed.status).toBe(503);
    expect(refreshed.headers['set-cookie']).toBeUndefined();
  });
});
