import { createApiFetch, createApiSend, platformUrl } from './client';
import { PlatformError } from './errors';
import { refreshDelayMs, SessionStore } from './session';

const user = { id: 'u1', username: 'ada', roles: ['admin'], permissions: ['*'], teams: [] };
const sessionBody = (token: string, expiresIn = 900) => JSON.stringify({ accessToken: token, tokenType: 'Bearer', expiresIn, user });
const json = (status: number, body: string) => new Response(body, { status, headers: { 'content-type': 'application/json' } });
const refused = (status: number, code: string, message: string) =>
  json(status, JSON.stringify({ error: { type: 'authentication_error', code, message }, requestId: 'r' }));

const ORIGIN = 'http://gateway.test';

/** The gateway as the browser sees it, answering each call in turn; the calls are kept (paths, headers). */
function gatewayAnswering(...answers: Array<() => Response>) {
  const calls: Array<{ url: string; init: RequestInit; headers: Headers }> = [];
  const fetchImpl = (async (input: string | Request, init: RequestInit = {}) => {
    const url = typeof input === 'string' ? input : input.url.slice(ORIGIN.length);
    calls.push({ url, init, headers: new Headers(typeof input === 'string' ? init.headers : input.headers) });
    const next = answers.shift();
    if (!next) throw new Error(`unexpected call ${url}`);
    return next();
  }) as unknown as typeof fetch;
  return { calls, fetchImpl };
}
const apiOf = (session: SessionStore, fetchImpl: typeof fetch) => createApiFetch(createApiSend(session, { origin: ORIGIN, fetch: fetchImpl }));

afterEach(() => jest.useRealTimers());

describe('refreshDelayMs', () => {
  it('refreshes a minute before expiry, or at half the life of a short token', () => {
    expect(refreshDelayMs(3600)).toBe(3_540_000);
    expect(refreshDelayMs(60)).toBe(30_000);
    expect(refreshDelayMs(1)).toBe(1000);
  });
});

describe('SessionStore', () => {
  it('signs in with the console header and keeps the token in memory only', async () => {
    jest.useFakeTimers();
    const gateway = gatewayAnswering(() => json(200, sessionBody('t1')));
    const session = new SessionStore(gateway.fetchImpl);
    await session.signIn('ada', 'secret');
    expect(session.accessToken).toBe('t1');
    expect(session.current).toMatchObject({ status: 'signed-in', user });
    const [call] = gateway.calls;
    expect(call.url).toBe('/api/v1/console/session');
    expect(call.init).toMatchObject({ method: 'POST', credentials: 'same-origin', headers: { 'X-Platform-Console': '1' } });
    expect(JSON.parse(String(call.init.body))).toEqual({ username: 'ada', password: 'secret' });
  });

  it('throws the refusal of a wrong password and stays signed out', async () => {
    const gateway = gatewayAnswering(() => refused(401, 'invalid_credentials', 'Invalid username or password'));
    const session = new SessionStore(gateway.fetchImpl);
    await expect(session.signIn('ada', 'wrong')).rejects.toMatchObject({ status: 401, message: 'Invalid username or password' });
    expect(session.accessToken).toBeUndefined();
  });

  it('refreshes shortly before the token expires', async () => {
    jest.useFakeTimers();
    const gateway = gatewayAnswering(
      () => json(200, sessionBody('t1', 120)),
      () => json(200, sessionBody('t2', 120)),
    );
    const session = new SessionStore(gateway.fetchImpl);
    await session.signIn('ada', 'secret');
    await jest.advanceTimersByTimeAsync(59_000);
    expect(gateway.calls).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(2_000);
    expect(gateway.calls[1].url).toBe('/api/v1/console/session/refresh');
    expect(session.accessToken).toBe('t2');
  });

  it('restores nothing without a cookie, and one refresh serves concurrent callers', async () => {
    const gateway = gatewayAnswering(() => refused(401, 'invalid_token', 'No session'));
    const session = new SessionStore(gateway.fetchImpl);
    const [a, b] = await Promise.all([session.restore(), session.refresh()]);
    expect([a, b]).toEqual([false, false]);
    expect(gateway.calls).toHaveLength(1);
    expect(session.current).toEqual({ status: 'signed-out', reason: undefined });
  });

  it('signs out by revoking at the gateway, and forgets the token even when the gateway is down', async () => {
    jest.useFakeTimers();
    const gateway = gatewayAnswering(
      () => json(200, sessionBody('t1')),
      () => {
        throw new TypeError('fetch failed');
      },
    );
    const session = new SessionStore(gateway.fetchImpl);
    await session.signIn('ada', 'secret');
    await expect(session.signOut()).rejects.toThrow('fetch failed');
    expect(gateway.calls[1].init.method).toBe('DELETE');
    expect(session.current.status).toBe('signed-out');
  });
});

describe('the API client', () => {
  it('reaches the gateway itself at its own paths and every other service through the pass-through', () => {
    expect(platformUrl('gateway', '/health/ready')).toBe('/health/ready');
    expect(platformUrl('registry', '/api/v1/agents', { limit: 1, q: undefined })).toBe('/api/v1/platform/registry/api/v1/agents?limit=1');
    expect(platformUrl('workflow-engine', 'api/v1/workflows/catalog')).toBe('/api/v1/platform/workflow-engine/api/v1/workflows/catalog');
  });

  it('sends the bearer token and, on a 401, refreshes once and retries', async () => {
    jest.useFakeTimers();
    const gateway = gatewayAnswering(
      () => json(200, sessionBody('old')),
      () => refused(401, 'invalid_token', 'expired'),
      () => json(200, sessionBody('new')),
      () => json(200, JSON.stringify({ items: [], total: 0 })),
    );
    const session = new SessionStore(gateway.fetchImpl);
    await session.signIn('ada', 'secret');
    const request = apiOf(session, gateway.fetchImpl);
    await expect(request('registry', '/api/v1/agents')).resolves.toEqual({ items: [], total: 0 });
    const auth = (i: number) => gateway.calls[i].headers.get('authorization');
    expect([auth(1), auth(3)]).toEqual(['Bearer old', 'Bearer new']);
    expect(gateway.calls[2].url).toBe('/api/v1/console/session/refresh');
  });

  it('gives up after one refresh: the 401 is thrown and the session is signed out', async () => {
    jest.useFakeTimers();
    const gateway = gatewayAnswering(
      () => json(200, sessionBody('old')),
      () => refused(401, 'invalid_token', 'revoked'),
      () => refused(401, 'invalid_token', 'No session'),
    );
    const session = new SessionStore(gateway.fetchImpl);
    await session.signIn('ada', 'secret');
    const request = apiOf(session, gateway.fetchImpl);
    await expect(request('auth', '/api/v1/auth/admin/users')).rejects.toMatchObject({ status: 401, message: 'revoked' });
    expect(session.current.status).toBe('signed-out');
  });

  it('turns an unreachable gateway into a PlatformError of status 0', async () => {
    const gateway = gatewayAnswering(() => {
      throw new TypeError('Failed to fetch');
    });
    const request = apiOf(new SessionStore(gateway.fetchImpl), gateway.fetchImpl);
    const error = await request('tracing', '/api/stats').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformError);
    expect(error).toMatchObject({ status: 0, code: 'network_error' });
  });
});
