import { delegatedToken, serviceApiKeyToken, TokenExchanger, UpstreamError } from '@platform/clients';
import { decodeCompactJws } from '@platform/jwt';
import { startAuth, type AuthHarness } from './fixtures';

/** `delegatedToken` of libs/clients against the real auth service, over HTTP. */
describe('delegated tokens from libs/clients', () => {
  let auth: AuthHarness;
  let apiKey: string;
  beforeAll(async () => {
    auth = await startAuth();
    apiKey = (await auth.serviceToken('workflow-engine', ['tokens:exchange'])).key;
  });
  afterAll(() => auth.close());

  const exchanger = (options: { now?: () => number } = {}) =>
    new TokenExchanger({ authUrl: auth.url, serviceToken: serviceApiKeyToken({ authUrl: auth.url, apiKey, clientId: 'workflow-engine' }), ...options });
  const exchangesFor = (jti: string) => auth.db.auditEvent.count({ where: { eventType: 'token_exchanged', metadata: { path: ['subjectJti'], equals: jti } } });
  const claimsOf = (token: string) => decodeCompactJws(token).payload as { sub: string; jti: string; act?: unknown; permissions: string[] };

  it('yields the user a token acted on by the service, one exchange for concurrent callers, cached after', async () => {
    const user = await auth.createUser(['workflows:read']);
    const subject = (await auth.login(user.username, user.password)).access_token;
    const source = delegatedToken(exchanger(), subject);
    const tokens = await Promise.all([source(), source(), source(), source()]);
    expect(new Set(tokens).size).toBe(1);
    expect(claimsOf(tokens[0]!)).toMatchObject({ sub: user.id, act: { sub: 'service:workflow-engine', client_id: 'workflow-engine' } });
    expect(await source()).toBe(tokens[0]);
    expect(await exchangesFor(claimsOf(subject).jti)).toBe(1);
  });

  it('keeps one token per user and per narrowing', async () => {
    const shared = exchanger();
    const [alice, bob] = [await auth.createUser(['workflows:read', 'workflows:write']), await auth.createUser(['workflows:read'])];
    const aliceToken = (await auth.login(alice.username, alice.password)).access_token;
    const bobToken = (await auth.login(bob.username, bob.password)).access_token;
    const forAlice = await delegatedToken(shared, aliceToken)();
    const forBob = await delegatedToken(shared, bobToken)();
    const narrowed = await delegatedToken(shared, aliceToken, { scope: ['workflows:read'] })();
    expect(claimsOf(forAlice!).sub).toBe(alice.id);
    expect(claimsOf(forBob!).sub).toBe(bob.id);
    expect(claimsOf(narrowed!)).toMatchObject({ sub: alice.id, permissions: ['workflows:read'] });
    expect(await delegatedToken(shared, aliceToken)()).toBe(forAlice);
  });

  it('exchanges again once the delegated token nears its end', async () => {
    let clock = Date.now();
    const shared = exchanger({ now: () => clock });
    const user = await auth.createUser();
    const subject = (await auth.login(user.username, user.password)).access_token;
    const first = await delegatedToken(shared, subject)();
    clock += 3600_000 - 59_000; // within the last minute of its hour
    const second = await delegatedToken(shared, subject)();
    expect(second).not.toBe(first);
    expect(await exchangesFor(claimsOf(subject).jti)).toBe(2);
  });

  it('fails as an upstream error naming auth when the user token is refused', async () => {
    const error = await exchanger()
      .exchange('not-a-token')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ service: 'auth', upstreamStatus: 400 });
  });
});
