import { decodeCompactJws, RedisRevocationList, StaticKeyResolver, TokenError, TokenVerifier } from '@platform/jwt';
import { eventually } from '@platform/testing';
import { startAuth, type AuthHarness } from './fixtures';

describe('API keys and the tokens they are exchanged for', () => {
  let auth: AuthHarness;
  let otherServiceRedis: AuthHarness['redis'];
  let elsewhere: RedisRevocationList;
  /** A verifier as any other service runs it: the auth service's keys, revocations from Redis. */
  let verifier: TokenVerifier;
  beforeAll(async () => {
    auth = await startAuth();
    otherServiceRedis = auth.redis.duplicate();
    elsewhere = new RedisRevocationList(otherServiceRedis);
    await elsewhere.start();
    verifier = new TokenVerifier({
      keys: new StaticKeyResolver(() => auth.service.keys.publicKeys()),
      issuer: 'http://auth.test',
      audience: 'agent-platform',
      revocations: elsewhere,
    });
  });
  afterAll(async () => {
    await elsewhere.stop();
    otherServiceRedis.disconnect();
    await auth.close();
  });

  const bearer = async () => `Bearer ${await auth.admin()}`;
  const issueKey = async (body: Record<string, unknown> = {}) => {
    const res = await auth
      .http()
      .post('/api/v1/auth/admin/api-keys')
      .set('Authorization', await bearer())
      .send({ service: 'revocable', permissions: ['registry:read'], ...body });
    if (res.status !== 201) throw new Error(`issue failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as { id: string; key: string };
  };
  const exchange = async (key: string) => {
    const res = await auth.http().post('/api/v1/auth/api-key').send({ api_key: key, client_id: 'svc' });
    if (res.status !== 200) throw new Error(`exchange failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as { access_token: string; expires_in: number };
  };
  const rotate = async (id: string, gracePeriodSeconds: number) =>
    auth
      .http()
      .post(`/api/v1/auth/admin/api-keys/${id}/rotate`)
      .set('Authorization', await bearer())
      .send({ gracePeriodSeconds });
  const validate = async (token: string) => (await auth.http().post('/api/v1/auth/validate').send({ token })).body;
  const revokedElsewhere = (token: string) =>
    verifier.verify(token).then(
      () => false,
      (error) => error instanceof TokenError && error.reason === 'token_revoked',
    );
  const protectedCall = (token: string) => auth.http().get('/api/v1/auth/admin/api-keys').set('Authorization', `Bearer ${token}`);

  it('names the key in the tokens it is exchanged for', async () => {
    const key = await issueKey();
    const { access_token } = await exchange(key.key);
    expect(decodeCompactJws(access_token).payload).toMatchObject({ sub: 'service:revocable', api_key_id: key.id });
    await expect(verifier.verify(access_token)).resolves.toMatchObject({ api_key_id: key.id });
  });

  it("revokes a deleted key's access tokens at once: at /validate, on the auth service and on every other service", async () => {
    const key = await issueKey({ permissions: ['auth:admin'] });
    const { access_token } = await exchange(key.key);
    expect(await validate(access_token)).toMatchObject({ valid: true });
    expect((await protectedCall(access_token)).status).toBe(200);

    expect(
      (
        await auth
          .http()
          .delete(`/api/v1/auth/admin/api-keys/${key.id}`)
          .set('Authorization', await bearer())
      ).status,
    ).toBe(204);
    expect(await validate(access_token)).toMatchObject({ valid: false, error: 'token_revoked' });
    await eventually(() => revokedElsewhere(access_token), 5000);
    await eventually(async () => (await protectedCall(access_token)).status === 401, 5000);
    const refused = await protectedCall(access_token);
    expect(refused.body.error.details.reason).toBe('token_revoked');
  });

  it("revokes a rotated key's tokens at once without a grace period; the new key's tokens stay valid", async () => {
    const key = await issueKey();
    const old = await exchange(key.key);
    const rotated = await rotate(key.id, 0);
    expect(rotated.status).toBe(201);
    const fresh = await exchange(rotated.body.key);
    expect(await validate(old.access_token)).toMatchObject({ valid: false, error: 'token_revoked' });
    await eventually(() => revokedElsewhere(old.access_token), 5000);
    expect(await validate(fresh.access_token)).toMatchObject({ valid: true });
    await expect(verifier.verify(fresh.access_token)).resolves.toMatchObject({ api_key_id: rotated.body.id });
  });

  it("keeps a rotated key's tokens through the grace period, and revokes them when it ends", async () => {
    const key = await issueKey();
    const old = await exchange(key.key);
    const rotated = await rotate(key.id, 10);
    expect(rotated.status).toBe(201);
    // Exchanged during the grace period: the token never outlives the key.
    const late = await exchange(key.key);
    expect(late.expires_in).toBeLessThanOrEqual(10);
    expect(await validate(old.access_token)).toMatchObject({ valid: true });
    await eventually(async () => (await validate(old.access_token)).error === 'token_revoked', 25_000);
    await eventually(() => revokedElsewhere(old.access_token), 5000);
  }, 60_000);

  it('lets a token from a key with an expiry live no longer than the key', async () => {
    const expiresAt = new Date(Date.now() + 120_000);
    const key = await issueKey({ expiresAt: expiresAt.toISOString() });
    const { access_token, expires_in } = await exchange(key.key);
    expect(expires_in).toBeLessThanOrEqual(120);
    expect(decodeCompactJws(access_token).payload.exp).toBeLessThanOrEqual(Math.floor(expiresAt.getTime() / 1000));
  });

  it('refuses to create a key that has already expired (400) and stores nothing', async () => {
    const service = `stillborn-${Date.now().toString(36)}`;
    for (const expiresAt of [new Date(Date.now() - 60_000).toISOString(), new Date().toISOString()]) {
      const res = await auth
        .http()
        .post('/api/v1/auth/admin/api-keys')
        .set('Authorization', await bearer())
        .send({ service, permissions: ['registry:read'], expiresAt });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ type: 'validation_error', details: { field: 'expiresAt' } });
    }
    expect(await auth.db.apiKey.count({ where: { service } })).toBe(0);
  });

  it('answers the IdP-token request of a service token with 403, not a 500', async () => {
    const key = await issueKey();
    const { access_token } = await exchange(key.key);
    const res = await auth.http().get('/api/v1/auth/oauth/idp-token').set('Authorization', `Bearer ${access_token}`);
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ type: 'authorization_error', code: 'not_a_user' });
  });
});
