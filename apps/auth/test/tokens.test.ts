import { decodeCompactJws, RedisRevocationList, StaticKeyResolver, TokenError, TokenVerifier } from '@platform/jwt';
import { eventually } from '@platform/testing';
import { createHmac, generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { startAuth, type AuthHarness } from './fixtures';

function claims(overrides: Record<string, unknown> = {}) {
  const now = Math.floor(Date.now() / 1000);
  return {
    sub: 'forged-user',
    iss: 'http://auth.test',
    aud: ['agent-platform'],
    iat: now,
    nbf: now,
    exp: now + 600,
    jti: randomUUID(),
    scope: 'api',
    roles: ['admin'],
    permissions: ['*'],
    client_id: 'x',
    ...overrides,
  };
}

const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('refresh, revoke, validate', () => {
  let auth: AuthHarness;
  let strict: AuthHarness;
  beforeAll(async () => {
    auth = await startAuth();
    strict = await startAuth({ AUTH_REFRESH_REUSE_GRACE: '0' });
  });
  afterAll(async () => {
    await auth.close();
    await strict.close();
  });

  const refresh = (harness: AuthHarness, token: string) =>
    harness.http().post('/api/v1/auth/refresh').send({ refresh_token: token, grant_type: 'refresh_token' });
  const validate = async (harness: AuthHarness, token: string) => (await harness.http().post('/api/v1/auth/validate').send({ token })).body;

  it('rotates the refresh token on every use', async () => {
    const user = await auth.createUser(['agents:read']);
    const first = await auth.login(user.username, user.password);
    const res = await refresh(auth, first.refresh_token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
    expect(res.body.refresh_token).not.toBe(first.refresh_token);
    expect(await validate(auth, res.body.access_token)).toMatchObject({ valid: true, payload: { sub: user.id, permissions: ['agents:read'] } });
    const stored = await auth.db.refreshToken.findMany({ where: { userId: user.id }, orderBy: { createdAt: 'asc' } });
    expect(stored).toHaveLength(2);
    expect(stored[1]!.familyId).toBe(stored[0]!.familyId);
    expect(stored[0]!.usedAt).not.toBeNull();
    expect(JSON.stringify(stored)).not.toContain(first.refresh_token);
  });

  it('revokes the whole family and its access tokens when a used refresh token comes back', async () => {
    const user = await strict.createUser();
    const first = await strict.login(user.username, user.password);
    const second = (await refresh(strict, first.refresh_token)).body;
    const replay = await refresh(strict, first.refresh_token);
    expect(replay.status).toBe(401);
    expect(replay.body.error).toMatchObject({ type: 'authentication_error', code: 'invalid_grant' });
    expect((await refresh(strict, second.refresh_token)).status).toBe(401);
    expect(await validate(strict, second.access_token)).toMatchObject({ valid: false, error: 'token_revoked' });
    expect(await validate(strict, first.access_token)).toMatchObject({ valid: false, error: 'token_revoked' });
    const audit = await strict.db.auditEvent.findFirst({ where: { userId: user.id, eventType: 'refresh_token_reuse_detected' } });
    expect(audit).not.toBeNull();
  });

  it('lets two refreshes racing from one client both succeed, but never revives an older token', async () => {
    const user = await auth.createUser();
    const first = await auth.login(user.username, user.password);
    const [a, b] = await Promise.all([refresh(auth, first.refresh_token), refresh(auth, first.refresh_token)]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(a.body.refresh_token).not.toBe(b.body.refresh_token);
    // The client moves on with one of them...
    const next = await refresh(auth, a.body.refresh_token);
    expect(next.status).toBe(200);
    // ...after which the first token is an old token, even inside the window: reuse.
    const stale = await refresh(auth, first.refresh_token);
    expect(stale.status).toBe(401);
    expect((await refresh(auth, next.body.refresh_token)).status).toBe(401);
  });

  it('refuses an unknown refresh token and audits it', async () => {
    const res = await refresh(auth, `rt_${randomUUID()}`);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('invalid_grant');
  });

  it('revokes an access token: /validate refuses it at once, and libs/jwt verifiers within seconds', async () => {
    const user = await auth.createUser(['agents:read']);
    const tokens = await auth.login(user.username, user.password);
    // A verifier as any other service runs it: keys from the auth service, revocations from Redis.
    const otherServiceRedis = auth.redis.duplicate();
    const elsewhere = new RedisRevocationList(otherServiceRedis);
    await elsewhere.start();
    const verifier = new TokenVerifier({
      keys: new StaticKeyResolver(() => auth.service.keys.publicKeys()),
      issuer: 'http://auth.test',
      audience: 'agent-platform',
      revocations: elsewhere,
    });
    await expect(verifier.verify(tokens.access_token)).resolves.toMatchObject({ sub: user.id });

    const res = await auth
      .http()
      .post('/api/v1/auth/revoke')
      .set('Authorization', `Bearer ${tokens.access_token}`)
      .send({ token: tokens.access_token, token_type_hint: 'access_token' });
    expect(res.status).toBe(200);
    const jti = decodeCompactJws(tokens.access_token).payload.jti;
    expect(res.body).toMatchObject({ revoked: true, jti });
    expect(new Date(res.body.revokedAt).getTime()).toBeLessThanOrEqual(Date.now());
    expect(await validate(auth, tokens.access_token)).toMatchObject({ valid: false, error: 'token_revoked' });
    await eventually(
      () =>
        verifier.verify(tokens.access_token).then(
          () => false,
          (error) => error instanceof TokenError && error.reason === 'token_revoked',
        ),
      5000,
    );
    const protectedCall = await auth.http().get('/api/v1/auth/oauth/idp-token').set('Authorization', `Bearer ${tokens.access_token}`);
    expect(protectedCall.status).toBe(401);
    expect(protectedCall.body.error.details.reason).toBe('token_revoked');
    expect(await auth.db.auditEvent.count({ where: { userId: user.id, eventType: 'token_revoked' } })).toBe(1);
    await elsewhere.stop();
    otherServiceRedis.disconnect();
  });

  it("answers success for an unknown token and for somebody else's, revealing nothing and revoking nothing", async () => {
    const caller = await auth.createUser();
    const callerToken = (await auth.login(caller.username, caller.password)).access_token;
    const other = await auth.createUser();
    const otherTokens = await auth.login(other.username, other.password);
    const unknown = await auth.http().post('/api/v1/auth/revoke').set('Authorization', `Bearer ${callerToken}`).send({ token: 'garbage' });
    const foreign = await auth.http().post('/api/v1/auth/revoke').set('Authorization', `Bearer ${callerToken}`).send({ token: otherTokens.access_token });
    expect(unknown.status).toBe(200);
    expect(foreign.status).toBe(200);
    expect({ ...unknown.body, revokedAt: 0 }).toEqual({ ...foreign.body, revokedAt: 0 });
    expect(await validate(auth, otherTokens.access_token)).toMatchObject({ valid: true });
    const foreignRefresh = await auth
      .http()
      .post('/api/v1/auth/revoke')
      .set('Authorization', `Bearer ${callerToken}`)
      .send({ token: otherTokens.refresh_token, token_type_hint: 'refresh_token' });
    expect(foreignRefresh.status).toBe(200);
    expect((await refresh(auth, otherTokens.refresh_token)).status).toBe(200);
  });

  it('revokes a refresh token with its family, and needs a bearer token to do so', async () => {
    const user = await auth.createUser();
    const tokens = await auth.login(user.username, user.password);
    expect((await auth.http().post('/api/v1/auth/revoke').send({ token: tokens.refresh_token })).status).toBe(401);
    const res = await auth
      .http()
      .post('/api/v1/auth/revoke')
      .set('Authorization', `Bearer ${tokens.access_token}`)
      .send({ token: tokens.refresh_token, token_type_hint: 'refresh_token' });
    expect(res.status).toBe(200);
    expect((await refresh(auth, tokens.refresh_token)).status).toBe(401);
    expect(await validate(auth, tokens.access_token)).toMatchObject({ valid: false, error: 'token_revoked' });
  });

  describe('/validate refuses forged and out-of-date tokens', () => {
    let signingKey: { kid: string; privateKey: KeyObject };
    let publicPem: string;
    beforeAll(() => {
      signingKey = auth.service.keys.signingKey();
      publicPem = auth.service.keys.publicKeys().get(signingKey.kid)!.export({ format: 'pem', type: 'spki' }).toString();
    });
    const sign = (payload: object, kid = signingKey.kid, key: KeyObject = signingKey.privateKey) => jwt.sign(payload, key, { algorithm: 'RS256', keyid: kid });

    it('accepts a genuine token signed by the current key', async () => {
      expect(await validate(auth, sign(claims()))).toMatchObject({ valid: true, payload: { sub: 'forged-user' } });
    });

    it.each([
      ['alg none', () => `${b64({ alg: 'none', typ: 'JWT', kid: signingKey.kid })}.${b64(claims())}.`, 'unsupported_algorithm'],
      [
        'HS256 keyed by the public key',
        () => {
          const input = `${b64({ alg: 'HS256', typ: 'JWT', kid: signingKey.kid })}.${b64(claims())}`;
          return `${input}.${createHmac('sha256', publicPem).update(input).digest('base64url')}`;
        },
        'unsupported_algorithm',
      ],
      ['an unknown kid', () => sign(claims(), 'no-such-key', generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey), 'unknown_key'],
      [
        'a known kid but another key',
        () => sign(claims(), signingKey.kid, generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey),
        'invalid_signature',
      ],
      [
        'a tampered payload',
        () => {
          const [h, , s] = sign(claims()).split('.');
          return `${h}.${b64(claims({ permissions: ['*', 'more'] }))}.${s}`;
        },
        'invalid_signature',
      ],
      ['expiry in the past', () => sign(claims({ exp: Math.floor(Date.now() / 1000) - 60 })), 'token_expired'],
      ['not valid yet', () => sign(claims({ nbf: Math.floor(Date.now() / 1000) + 600 })), 'token_not_yet_valid'],
      ['another audience', () => sign(claims({ aud: ['someone-else'] })), 'invalid_audience'],
      ['another issuer', () => sign(claims({ iss: 'http://evil.test' })), 'invalid_issuer'],
      ['missing claims', () => sign({ sub: 'x', iss: 'http://auth.test', aud: ['agent-platform'], exp: Math.floor(Date.now() / 1000) + 60 }), 'invalid_claims'],
      ['not a JWT at all', () => 'hello.world', 'token_malformed'],
    ])('refuses %s', async (_name, forge, reason) => {
      const body = await validate(auth, forge());
      expect(body).toMatchObject({ valid: false, error: reason });
      expect(typeof body.message).toBe('string');
    });
  });

  it('publishes RSA signature keys in the JWKS, cacheable', async () => {
    const res = await auth.http().get('/.well-known/jwks.json');
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toContain('max-age=300');
    expect(res.body.keys.length).toBeGreaterThanOrEqual(1);
    expect(res.body.keys.length).toBeLessThanOrEqual(5);
    for (const key of res.body.keys) expect(Object.keys(key).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
    expect(res.body.keys[0]).toMatchObject({ kty: 'RSA', use: 'sig', alg: 'RS256', e: 'AQAB' });
  });
});
