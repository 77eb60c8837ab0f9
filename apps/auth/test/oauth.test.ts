import { decodeCompactJws } from '@platform/jwt';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { TestIdentityProvider } from './idp/identity-provider';
import { startAuth, type AuthHarness } from './fixtures';

const REDIRECT_URI = 'http://127.0.0.1:45871/callback';
const SCOPES = ['openid', 'profile', 'email', 'groups', 'offline_access'];

function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

describe('OAuth 2.0 authorization code with PKCE against a real OpenID provider', () => {
  let auth: AuthHarness;
  let idp: TestIdentityProvider;
  const provider = `idp-${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    idp = await new TestIdentityProvider(REDIRECT_URI).start();
    auth = await startAuth();
    const configured = await auth
      .http()
      .post('/api/v1/auth/oauth/configure')
      .set('Authorization', `Bearer ${await auth.admin()}`)
      .send({
        provider,
        config: {
          authorizationURL: `${idp.issuer}/auth`,
          tokenURL: `${idp.issuer}/token`,
          userInfoURL: `${idp.issuer}/me`,
          clientID: 'platform-test-client',
          clientSecret: 'platform-test-secret',
          callbackURL: REDIRECT_URI,
          scopes: SCOPES,
        },
      });
    expect(configured.status).toBe(200);
    expect(configured.body).toMatchObject({ provider, configured: true, callbackURL: REDIRECT_URI });
    expect(JSON.stringify(configured.body)).not.toContain('platform-test-secret');
  });
  afterAll(async () => {
    idp?.stop(); // first: a failed start must not leave the provider process behind
    await auth?.close();
  });

  const authorize = (query: Record<string, string>) =>
    auth.http().get(`/api/v1/auth/oauth/authorize?${new URLSearchParams({ provider, client_id: 'web', ...query })}`);

  /** Runs the browser part: authorize at the platform, sign in at the provider, come back with a code. */
  async function obtainCode(account: 'alice' | 'dave' | 'bob', query: Record<string, string> = {}) {
    const { verifier, challenge } = pkce();
    const state = randomBytes(24).toString('base64url');
    await idp.signInAs(account);
    const res = await authorize({ code_challenge: challenge, code_challenge_method: 'S256', state, ...query });
    expect(res.status).toBe(302);
    const back = await idp.authorize(res.headers.location!);
    expect(back.get('state')).toBe(state);
    return { code: back.get('code')!, verifier, state, location: res.headers.location! };
  }

  const exchange = (body: Record<string, string>) =>
    auth
      .http()
      .post('/api/v1/auth/oauth/token')
      .send({ grant_type: 'authorization_code', redirect_uri: REDIRECT_URI, client_id: 'web', ...body });

  it('redirects to the provider with the PKCE challenge and an exact redirect URI', async () => {
    const { challenge } = pkce();
    const state = `state-${randomUUID()}`;
    const res = await authorize({ code_challenge: challenge, code_challenge_method: 'S256', state });
    expect(res.status).toBe(302);
    const url = new URL(res.headers.location!);
    expect(`${url.origin}${url.pathname}`).toBe(`${idp.issuer}/auth`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: 'platform-test-client',
      redirect_uri: REDIRECT_URI,
      response_type: 'code',
      scope: SCOPES.join(' '),
      state,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
  });

  it('signs a user in end to end: tokens, roles from group mapping, the IdP token stored encrypted, refresh', async () => {
    const { code, verifier, state } = await obtainCode('alice');
    const res = await exchange({ code, code_verifier: verifier, state });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      token_type: 'Bearer',
      expires_in: 3600,
      user: {
        username: expect.stringMatching(/^alice(@idp-[a-f0-9]+)?$/),
        email: 'alice@example.test',
        name: 'Alice Admin',
        roles: expect.arrayContaining(['admin', 'user']),
        idp_id: null,
      },
    });
    expect(res.body.user.groups).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'platform/admins', role: 'admin', id: expect.any(Number) })]));
    expect(decodeCompactJws(res.body.access_token).payload).toMatchObject({ sub: res.body.user.id, permissions: ['*'] });

    // Code replay: the same code and verifier again.
    const replay = await exchange({ code, code_verifier: verifier, state });
    expect(replay.status).toBe(400);
    expect(replay.body.error.code).toBe('invalid_grant');

    // The IdP token: served to its owner, valid at the provider, encrypted at rest.
    const idpToken = await auth.http().get('/api/v1/auth/oauth/idp-token').set('Authorization', `Bearer ${res.body.access_token}`);
    expect(idpToken.status).toBe(200);
    expect(idpToken.body).toMatchObject({
      token_type: 'Bearer',
      expires_in: expect.any(Number),
      created_at: expect.any(Number),
      refresh_token: expect.any(String),
    });
    const userinfo = await fetch(`${idp.issuer}/me`, { headers: { authorization: `Bearer ${idpToken.body.access_token}` } });
    expect(userinfo.status).toBe(200);
    const stored = await auth.db.idpToken.findFirstOrThrow({ where: { userId: res.body.user.id } });
    expect(stored.accessTokenEncrypted).not.toContain(idpToken.body.access_token);

    // Refresh: a new platform session token and a new IdP token.
    const refreshed = await auth
      .http()
      .post('/api/v1/auth/oauth/refresh')
      .send({ grant_type: 'refresh_token', refresh_token: res.body.refresh_token, provider });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.refresh_token).not.toBe(res.body.refresh_token);
    expect(refreshed.body.idp_token.access_token).not.toBe(idpToken.body.access_token);
    expect((await fetch(`${idp.issuer}/me`, { headers: { authorization: `Bearer ${refreshed.body.idp_token.access_token}` } })).status).toBe(200);
    const wrongProvider = await auth
      .http()
      .post('/api/v1/auth/oauth/refresh')
      .send({ grant_type: 'refresh_token', refresh_token: refreshed.body.refresh_token, provider: 'gitlab' });
    expect(wrongProvider.status).toBe(401);
    expect(await auth.db.auditEvent.count({ where: { userId: res.body.user.id, eventType: 'oauth_login_success' } })).toBe(1);
  });

  it('maps a developer group to the developer role and its permissions', async () => {
    const { code, verifier } = await obtainCode('dave');
    const res = await exchange({ code, code_verifier: verifier });
    expect(res.status).toBe(200);
    expect(res.body.user.roles).toEqual(['developer']);
    expect(decodeCompactJws(res.body.access_token).payload.permissions).toEqual(expect.arrayContaining(['agents:write', 'registry:write']));
  });

  it('denies access to a user whose groups map to no role', async () => {
    const { code, verifier } = await obtainCode('bob');
    const res = await exchange({ code, code_verifier: verifier });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ type: 'authorization_error', code: 'access_denied' });
  });

  it('rejects a state that does not match the authorization request (CSRF)', async () => {
    const { code, verifier } = await obtainCode('alice');
    const res = await exchange({ code, code_verifier: verifier, state: 'a-forged-state-value-1234' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_grant');
    expect(
      await auth.db.auditEvent.count({ where: { eventType: 'oauth_login_failure', metadata: { path: ['reason'], equals: 'state_mismatch' } } }),
    ).toBeGreaterThan(0);
  });

  it('rejects a wrong or missing PKCE verifier', async () => {
    const { code } = await obtainCode('alice');
    const wrong = await exchange({ code, code_verifier: pkce().verifier });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.code).toBe('invalid_grant');
    const missing = await exchange({ code });
    expect(missing.status).toBe(400);
    expect(missing.body.error.code).toBe('invalid_request');
  });

  it('refuses the plain PKCE method and a missing challenge', async () => {
    const { verifier } = pkce();
    const plain = await authorize({ code_challenge: verifier.slice(0, 43), code_challenge_method: 'plain' });
    expect(plain.status).toBe(400);
    expect(plain.body.error.message).toContain('S256');
    expect((await authorize({})).status).toBe(400);
  });

  it.each([
    ['a prefix', `${REDIRECT_URI}x`],
    ['an extra path', `${REDIRECT_URI}/extra`],
    ['another port', REDIRECT_URI.replace('45871', '45872')],
    ['a userinfo trick', 'http://127.0.0.1:45871@evil.example/callback'],
    ['another scheme', REDIRECT_URI.replace('http:', 'https:')],
    ['a localhost callback while development callbacks are off', 'http://localhost:5173/callback'],
  ])('refuses a redirect URI with %s', async (_name, redirectUri) => {
    const res = await authorize({ code_challenge: pkce().challenge, redirect_uri: redirectUri });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('redirect_uri_mismatch');
  });

  it('refuses a token exchange whose redirect URI differs from the authorization request', async () => {
    const { code, verifier } = await obtainCode('alice');
    const res = await exchange({ code, code_verifier: verifier, redirect_uri: `${REDIRECT_URI}/other` });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('redirect_uri_mismatch');
  });

  it('accepts a local development callback only when enabled by configuration', async () => {
    const dev = await startAuth({ AUTH_OAUTH_ALLOW_DEV_CALLBACK: 'true' });
    try {
      const ok = await dev
        .http()
        .get(
          `/api/v1/auth/oauth/authorize?${new URLSearchParams({ provider, code_challenge: pkce().challenge, redirect_uri: 'http://localhost:5173/callback' })}`,
        );
      expect(ok.status).toBe(302);
      const tricked = await dev
        .http()
        .get(
          `/api/v1/auth/oauth/authorize?${new URLSearchParams({ provider, code_challenge: pkce().challenge, redirect_uri: 'http://localhost:5173@evil.example/callback' })}`,
        );
      expect(tricked.status).toBe(400);
    } finally {
      await dev.close();
    }
  });

  it('answers 404 for an unknown provider and guards configuration', async () => {
    expect(
      (await auth.http().get(`/api/v1/auth/oauth/authorize?${new URLSearchParams({ provider: 'nobody', code_challenge: pkce().challenge })}`)).status,
    ).toBe(404);
    const user = await auth.createUser(['agents:read']);
    const token = (await auth.login(user.username, user.password)).access_token;
    const body = {
      provider: 'sneaky',
      config: {
        authorizationURL: 'http://x.test/a',
        tokenURL: 'http://x.test/t',
        userInfoURL: 'http://x.test/u',
        clientID: 'c',
        clientSecret: 's',
        callbackURL: 'http://x.test/cb',
      },
    };
    expect((await auth.http().post('/api/v1/auth/oauth/configure').send(body)).status).toBe(401);
    expect((await auth.http().post('/api/v1/auth/oauth/configure').set('Authorization', `Bearer ${token}`).send(body)).status).toBe(403);
    const invalid = await auth
      .http()
      .post('/api/v1/auth/oauth/configure')
      .set('Authorization', `Bearer ${await auth.admin()}`)
      .send({ provider: 'bad', config: { ...body.config, tokenURL: 'not a url', extra: 1 } });
    expect(invalid.status).toBe(400);
    expect(await auth.db.oAuthProvider.findUnique({ where: { name: 'bad' } })).toBeNull();
  });

  it('answers 404 for the IdP token of a user who never signed in through a provider', async () => {
    const user = await auth.createUser();
    const token = (await auth.login(user.username, user.password)).access_token;
    const res = await auth.http().get('/api/v1/auth/oauth/idp-token').set('Authorization', `Bearer ${token}`);
    expect(res.status).toBe(404);
    expect((await auth.http().get('/api/v1/auth/oauth/idp-token')).status).toBe(401);
  });
});
