import { testRedis } from '@platform/testing';
import jwt from 'jsonwebtoken';
import { generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { JwksKeyResolver, StaticKeyResolver } from './key-resolver';
import { hasPermission } from './permissions';
import { apiKeyRevocationName, publishApiKeyRevocation, publishRevocation, RedisRevocationList } from './revocation';
import { TokenError } from './token-error';
import { TokenVerifier } from './verifier';

/** A JWKS endpoint whose key list the test changes, counting fetches. */
async function jwksServer() {
  const keys: Array<{ kid: string; key: KeyObject }> = [];
  let fetches = 0;
  const server = http.createServer((_req, res) => {
    fetches++;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ keys: keys.map(({ kid, key }) => ({ ...key.export({ format: 'jwk' }), kid, use: 'sig', alg: 'RS256' })) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addKey = () => {
    const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const kid = randomUUID();
    keys.push({ kid, key: pair.publicKey });
    return { kid, privateKey: pair.privateKey };
  };
  return { uri: `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`, addKey, fetches: () => fetches, close: () => server.close() };
}

const sign = (signer: { kid: string; privateKey: KeyObject }, claims: Record<string, unknown> = {}) => {
  const now = Math.floor(Date.now() / 1000);
  return jwt.sign(
    {
      sub: 'u1',
      iss: 'https://auth.test',
      aud: ['svc'],
      iat: now,
      nbf: now,
      exp: now + 60,
      jti: randomUUID(),
      scope: 'api',
      roles: [],
      permissions: ['a:b'],
      client_id: 'c',
      ...claims,
    },
    signer.privateKey,
    { algorithm: 'RS256', keyid: signer.kid },
  );
};

const reasonOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'accepted',
    (error: unknown) => (error instanceof TokenError ? error.reason : String(error)),
  );

describe('TokenVerifier with a JWKS', () => {
  let jwks: Awaited<ReturnType<typeof jwksServer>>;
  beforeAll(async () => {
    jwks = await jwksServer();
  });
  afterAll(() => jwks.close());

  const verifier = () => new TokenVerifier({ keys: new JwksKeyResolver({ jwksUri: jwks.uri }), issuer: 'https://auth.test', audience: 'svc' });

  it('verifies a token and fetches the key set once for many tokens', async () => {
    const signer = jwks.addKey();
    const v = verifier();
    const before = jwks.fetches();
    for (let i = 0; i < 20; i++) await expect(v.verify(sign(signer))).resolves.toMatchObject({ sub: 'u1', aud: ['svc'] });
    expect(jwks.fetches() - before).toBe(1);
  });

  it('refetches the key set when a token names a kid it has not seen (key rotation)', async () => {
    const v = verifier();
    await v.verify(sign(jwks.addKey()));
    const rotated = jwks.addKey();
    await expect(v.verify(sign(rotated))).resolves.toMatchObject({ sub: 'u1' });
  });

  it('refuses a kid the key set does not hold, expiry, audience and issuer', async () => {
    const signer = jwks.addKey();
    const stranger = { kid: 'stranger', privateKey: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey };
    const v = verifier();
    expect(await reasonOf(v.verify(sign(stranger)))).toBe('unknown_key');
    expect(await reasonOf(v.verify(sign(signer, { exp: Math.floor(Date.now() / 1000) - 30 })))).toBe('token_expired');
    expect(await reasonOf(v.verify(sign(signer, { aud: 'other' })))).toBe('invalid_audience');
    expect(await reasonOf(v.verify(sign(signer, { iss: 'https://evil.test' })))).toBe('invalid_issuer');
    expect(await reasonOf(v.verify(sign(signer, { nbf: Math.floor(Date.now() / 1000) + 120 })))).toBe('token_not_yet_valid');
  });

  it('carries the expiry time on an expired-token error', async () => {
    const exp = Math.floor(Date.now() / 1000) - 30;
    const error = await verifier()
      .verify(sign(jwks.addKey(), { exp }))
      .catch((e: TokenError) => e);
    expect(error).toBeInstanceOf(TokenError);
    expect((error as TokenError).expiredAt?.getTime()).toBe(exp * 1000);
  });

  it('never lets tokens with random kids starve known keys, and keeps the last good key set', async () => {
    const signer = jwks.addKey();
    const v = new TokenVerifier({ keys: new JwksKeyResolver({ jwksUri: jwks.uri, requestsPerMinute: 3 }), issuer: 'https://auth.test', audience: 'svc' });
    await expect(v.verify(sign(signer))).resolves.toMatchObject({ sub: 'u1' });
    const before = jwks.fetches();
    // 50 forged tokens with random kids: only the unknown-kid budget is spent on refetches.
    for (let i = 0; i < 50; i++) expect(await reasonOf(v.verify(sign({ kid: randomUUID(), privateKey: signer.privateKey })))).toBe('unknown_key');
    expect(jwks.fetches() - before).toBe(3);
    // The known key still verifies, without a fetch.
    await expect(v.verify(sign(signer))).resolves.toMatchObject({ sub: 'u1' });
    expect(jwks.fetches() - before).toBe(3);
  });

  it('serves known keys from the last good set while the JWKS is down, and refreshes them before they expire', async () => {
    const signer = jwks.addKey();
    const resolver = new JwksKeyResolver({ jwksUri: jwks.uri, cacheMaxAgeMs: 200 });
    const v = new TokenVerifier({ keys: resolver, issuer: 'https://auth.test', audience: 'svc' });
    await v.verify(sign(signer));
    const before = jwks.fetches();
    await new Promise((resolve) => setTimeout(resolve, 250));
    await expect(v.verify(sign(signer))).resolves.toMatchObject({ sub: 'u1' });
    for (let i = 0; i < 20 && jwks.fetches() === before; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(jwks.fetches()).toBe(before + 1);
    const down = new JwksKeyResolver({ jwksUri: jwks.uri, cacheMaxAgeMs: 50 });
    await down.get(signer.kid);
    (down as unknown as { client: { getSigningKeys: () => Promise<never> } }).client.getSigningKeys = () => Promise.reject(new Error('down'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await down.get(signer.kid)).toBeDefined();
  });

  it('says the keys are unavailable when the JWKS cannot be reached', async () => {
    const v = new TokenVerifier({
      keys: new JwksKeyResolver({ jwksUri: 'http://127.0.0.1:1/jwks.json', timeoutMs: 500 }),
      issuer: 'https://auth.test',
      audience: 'svc',
    });
    expect(await reasonOf(v.verify(sign(jwks.addKey())))).toBe('jwks_unavailable');
  });
});

describe('TokenVerifier remembering verified tokens', () => {
  const pair = () => generateKeyPairSync('rsa', { modulusLength: 2048 });

  it('still refuses a token it has verified before once it expires, is revoked, or its key is gone', async () => {
    const first = pair();
    let keys = new Map([['k1', first.publicKey]]);
    const revoked = new Set<string>();
    let now = Date.now() / 1000;
    const v = new TokenVerifier({
      keys: new StaticKeyResolver(() => keys),
      issuer: 'https://auth.test',
      audience: 'svc',
      revocations: { isRevoked: (jti) => revoked.has(jti) },
      now: () => now,
    });
    const signer = { kid: 'k1', privateKey: first.privateKey };
    const token = sign(signer);
    const claims = await v.verify(token);
    await expect(v.verify(token)).resolves.toEqual(claims);

    revoked.add(claims.jti);
    expect(await reasonOf(v.verify(token))).toBe('token_revoked');
    revoked.clear();
    await expect(v.verify(token)).resolves.toEqual(claims);

    // A remembered token issued for an API key dies with the key.
    const keyToken = sign(signer, { api_key_id: 'key-1' });
    await v.verify(keyToken);
    revoked.add(apiKeyRevocationName('key-1'));
    expect(await reasonOf(v.verify(keyToken))).toBe('token_revoked');
    revoked.clear();

    now = claims.exp + 10;
    expect(await reasonOf(v.verify(token))).toBe('token_expired');
    now = Date.now() / 1000;

    // The kid now names another key (rotation, or a key withdrawn and replaced): the remembered
    // verification no longer counts, and the signature is checked against the key now published.
    keys = new Map([['k1', pair().publicKey]]);
    expect(await reasonOf(v.verify(token))).toBe('invalid_signature');
    keys = new Map();
    expect(await reasonOf(v.verify(token))).toBe('unknown_key');
    keys = new Map([['k1', first.publicKey]]);
    await expect(v.verify(token)).resolves.toEqual(claims);
  });

  it('hands out claims that callers cannot change for the next request', async () => {
    const first = pair();
    const v = new TokenVerifier({ keys: new StaticKeyResolver(() => new Map([['k1', first.publicKey]])), issuer: 'https://auth.test', audience: 'svc' });
    const token = sign({ kid: 'k1', privateKey: first.privateKey }, { permissions: ['a:b'] });
    const claims = await v.verify(token);
    expect(() => (claims.permissions as string[]).push('*')).toThrow(TypeError);
    expect((await v.verify(token)).permissions).toEqual(['a:b']);
  });

  it('remembers at most cacheSize tokens, and none with cacheSize 0', async () => {
    const first = pair();
    for (const cacheSize of [0, 2]) {
      const v = new TokenVerifier({
        keys: new StaticKeyResolver(() => new Map([['k1', first.publicKey]])),
        issuer: 'https://auth.test',
        audience: 'svc',
        cacheSize,
      });
      const tokens = Array.from({ length: 5 }, () => sign({ kid: 'k1', privateKey: first.privateKey }));
      for (const token of tokens) await expect(v.verify(token)).resolves.toMatchObject({ sub: 'u1' });
      for (const token of tokens) await expect(v.verify(token)).resolves.toMatchObject({ sub: 'u1' });
    }
  });
});

describe('RedisRevocationList', () => {
  const redis = testRedis();
  afterAll(() => redis.quit());

  it('learns of a revocation from another process within moments, and forgets it after the token expires', async () => {
    const list = new RedisRevocationList(redis, 200);
    await list.start();
    const jti = randomUUID();
    expect(list.isRevoked(jti)).toBe(false);
    await publishRevocation(redis, jti, Math.floor(Date.now() / 1000) + 60);
    for (let i = 0; i < 50 && !list.isRevoked(jti); i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(list.isRevoked(jti)).toBe(true);
    const expired = randomUUID();
    await publishRevocation(redis, expired, Math.floor(Date.now() / 1000) - 3600);
    await list.resync();
    expect(list.isRevoked(expired)).toBe(false);
    await list.stop();
  });

  it("revokes an API key's tokens from the time it names: at once, or when a grace period ends", async () => {
    const list = new RedisRevocationList(redis, 200);
    await list.start();
    const now = Math.floor(Date.now() / 1000);
    const [revokedNow, revokedLater] = [randomUUID(), randomUUID()];
    await publishApiKeyRevocation(redis, revokedNow, now, now + 3600);
    await publishApiKeyRevocation(redis, revokedLater, now + 3600, now + 7200);
    for (let i = 0; i < 50 && !list.isRevoked(apiKeyRevocationName(revokedNow)); i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(list.isRevoked(apiKeyRevocationName(revokedNow))).toBe(true);
    expect(list.isRevoked(apiKeyRevocationName(revokedLater))).toBe(false);
    await list.resync();
    expect([list.isRevoked(apiKeyRevocationName(revokedNow)), list.isRevoked(apiKeyRevocationName(revokedLater))]).toEqual([true, false]);
    await list.stop();
  });
});

describe('hasPermission', () => {
  it.each([
    [['*'], 'registry:write', true],
    [['registry:*'], 'registry:write', true],
    [['registry:read'], 'registry:write', false],
    [['registry:write'], 'registry:write', true],
    [['mcp:*'], 'registry:read', false],
    [[], 'registry:read', false],
  ])('%j grants %s: %s', (granted, required, expected) => {
    expect(hasPermission(granted, required)).toBe(expected);
  });
});

describe('decodeCompactJws', () => {
  it('refuses a signature segment with characters outside base64url (no malleable variants)', async () => {
    const { decodeCompactJws } = await import('./compact-jws');
    const signer = { kid: 'k', privateKey: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey };
    const token = sign(signer);
    expect(() => decodeCompactJws(token)).not.toThrow();
    for (const variant of [`${token}!`, `${token}=`, `${token} `]) {
      expect(() => decodeCompactJws(variant)).toThrow(TokenError);
    }
    expect(() => decodeCompactJws('..sig')).toThrow(TokenError);
  });
});
