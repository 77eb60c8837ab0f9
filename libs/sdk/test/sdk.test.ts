import { bootPlatform, uniqueName, type BootedPlatform } from '@platform/testing';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import WebSocket from 'ws';
import {
  createPlatformClient,
  executionEvents,
  memoryStore,
  paginate,
  paginateCursor,
  registryEvents,
  PlatformError,
  PlatformSession,
  unwrap,
  type PlatformClient,
  type WebSocketConstructor,
} from '../src';

/**
 * The SDK against the real platform (booted once, in database `*_sdk` and a private Redis): every
 * call goes through the gateway's pass-through unless a test says `direct`.
 */
let booted: BootedPlatform;
let session: PlatformSession;
let platform: PlatformClient;
const WS = WebSocket as unknown as WebSocketConstructor;

beforeAll(async () => {
  booted = await bootPlatform({
    databaseSuffix: 'sdk',
    env: { MCP_STDIO_ALLOWED_COMMANDS: 'mcp-server-everything', MCP_STDIO_PATH: path.join(__dirname, '../../../node_modules/.bin') },
  });
  session = new PlatformSession({ baseUrl: booted.urls.gateway, WebSocket: WS, clientId: 'sdk-test' });
  await session.loginWithPassword(booted.admin.username, booted.admin.password);
  platform = session.client();
}, 420_000);

afterAll(async () => {
  await booted?.stop();
}, 90_000);

/** What a rejected promise was, for an assertion on its fields. */
async function failure(promise: Promise<unknown>): Promise<PlatformError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof PlatformError) return error;
    throw error;
  }
  throw new Error('the call succeeded');
}

describe('typed clients through the gateway', () => {
  it('reads a service through the pass-through with the session token', async () => {
    const teams = await unwrap(platform.auth.GET('/api/v1/auth/teams', { params: { query: { limit: 5 } } }));
    expect(teams).toMatchObject({ teams: expect.any(Array), total: expect.any(Number), limit: 5, offset: 0 });
    const agents = await unwrap(platform.registry.GET('/api/v1/agents', { params: { query: { limit: 1 } } }));
    expect(agents).toMatchObject({ items: [], total: 0 });
  });

  it('reaches a service directly when told its URL', async () => {
    const direct = createPlatformClient({ baseUrl: 'http://127.0.0.1:1', direct: { registry: booted.urls.registry }, token: () => session.token() });
    expect(direct.serviceUrl('registry')).toBe(booted.urls.registry);
    await expect(unwrap(direct.registry.GET('/api/v1/agents'))).resolves.toMatchObject({ total: 0 });
  });
});

describe('errors', () => {
  it("turns the service's error body into a PlatformError: 400 with the issues' paths", async () => {
    const error = await failure(unwrap(platform.registry.GET('/api/v1/agents', { params: { query: { limit: 100_000 } } })));
    expect(error).toMatchObject({ status: 400, code: 'invalid_request', type: 'validation_error', requestId: expect.any(String) });
    expect(JSON.stringify(error.details)).toContain('limit');
  });

  it('401 without a token, 404 for a missing resource', async () => {
    const anonymous = createPlatformClient({ baseUrl: booted.urls.gateway });
    expect(await failure(unwrap(anonymous.registry.GET('/api/v1/agents')))).toMatchObject({ status: 401, code: 'invalid_token' });
    const missing = await failure(
      unwrap(platform.workflowEngine.GET('/api/v1/executions/{executionId}', { params: { path: { executionId: '00000000-0000-4000-8000-000000000000' } } })),
    );
    expect(missing).toMatchObject({ status: 404, code: 'not_found' });
  });

  it('a platform that does not answer is a network error (status 0)', async () => {
    const nowhere = createPlatformClient({ baseUrl: 'http://127.0.0.1:9' });
    expect(await failure(unwrap(nowhere.registry.GET('/api/v1/agents')))).toMatchObject({ status: 0, code: 'network_error' });
  });
});

describe('sessions', () => {
  it('renews the access token before it expires, rotating the refresh token', async () => {
    let now = Date.now();
    const own = new PlatformSession({ baseUrl: booted.urls.gateway, now: () => now });
    const first = await own.loginWithPassword(booted.admin.username, booted.admin.password);
    expect(await own.token()).toBe(first.accessToken);
    now = first.expiresAt - 30_000; // inside the renewal window
    const renewed = await own.token();
    expect(renewed).not.toBe(first.accessToken);
    expect((await own.tokens())!.refreshToken).not.toBe(first.refreshToken);
    await expect(unwrap(own.client().auth.GET('/api/v1/auth/teams'))).resolves.toMatchObject({ total: expect.any(Number) });
  });

  it('after a 401 refreshes once and retries the request', async () => {
    const own = new PlatformSession({ baseUrl: booted.urls.gateway });
    const tokens = await own.loginWithPassword(booted.admin.username, booted.admin.password);
    const store = memoryStore({ ...tokens, accessToken: 'not-a-token' });
    const refreshing = new PlatformSession({ baseUrl: booted.urls.gateway, store });
    const teams = await unwrap(refreshing.client().auth.GET('/api/v1/auth/teams'));
    expect(teams.total).toEqual(expect.any(Number));
    expect((await store.load())!.accessToken).not.toBe('not-a-token');
  });

  it('logs in with an API key, renews by exchanging it again, and logout revokes', async () => {
    const issued = await unwrap(
      platform.auth.POST('/api/v1/auth/admin/api-keys', { body: { service: uniqueName('sdk-key').toLowerCase(), permissions: ['registry:read'] } }),
    );
    let now = Date.now();
    const keyed = new PlatformSession({ baseUrl: booted.urls.gateway, now: () => now });
    const first = await keyed.loginWithApiKey(issued.key);
    await expect(unwrap(keyed.client().registry.GET('/api/v1/agents'))).resolves.toMatchObject({ total: 0 });
    now = first.expiresAt - 1000;
    await new Promise((resolve) => setTimeout(resolve, 1100)); // a new token differs from the first by its iat
    expect(await keyed.token()).not.toBe(first.accessToken);
    // The key itself, sent as X-API-Key, is exchanged by the gateway.
    const byKey = createPlatformClient({ baseUrl: booted.urls.gateway, apiKey: issued.key });
    await expect(unwrap(byKey.registry.GET('/api/v1/agents'))).resolves.toMatchObject({ total: 0 });

    const own = new PlatformSession({ baseUrl: booted.urls.gateway });
    const tokens = await own.loginWithPassword(booted.admin.username, booted.admin.password);
    await own.logout();
    expect(await own.tokens()).toBeUndefined();
    const after = new PlatformSession({ baseUrl: booted.urls.gateway, store: memoryStore(tokens) });
    expect(await after.refresh()).toBe(false);
  });

  it('a wrong password is a 401 PlatformError', async () => {
    const own = new PlatformSession({ baseUrl: booted.urls.gateway });
    expect(await failure(own.loginWithPassword(booted.admin.username, 'wrong-password'))).toMatchObject({ status: 401 });
  });
});

describe('pagination', () => {
  it('walks an offset-paged list page by page, the same items as one big page', async () => {
    const prefix = uniqueName('page');
    for (let i = 0; i < 5; i++) await unwrap(platform.auth.POST('/api/v1/auth/teams', { body: { name: `${prefix}-${i}` } }));
    const whole = await unwrap(platform.auth.GET('/api/v1/auth/teams', { params: { query: { limit: 500 } } }));
    const requested: number[] = [];
    const walked = [];
    for await (const team of paginate(
      (page) => {
        requested.push(page.offset);
        return platform.auth.GET('/api/v1/auth/teams', { params: { query: page } });
      },
      { pageSize: 2 },
    )) {
      walked.push(team);
    }
    expect(walked.map((team) => team.id)).toEqual(whole.teams.map((team) => team.id));
    expect(walked.filter((team) => team.name.startsWith(prefix))).toHaveLength(5);
    expect(requested.slice(0, 3)).toEqual([0, 2, 4]);
  });

  it('walks a cursor-paged list (tracing spans) to its end', async () => {
    const project = uniqueName('sdk-project');
    const traceId = randomBytes(16).toString('hex');
    const start = BigInt(Date.now()) * 1_000_000n;
    const spans = Array.from({ length: 5 }, (_, i) => ({
      traceId,
      spanId: randomBytes(8).toString('hex'),
      name: `step-${i}`,
      kind: 1,
      startTimeUnixNano: String(start + BigInt(i) * 1_000_000n),
      endTimeUnixNano: String(start + BigInt(i) * 1_000_000n + 500_000n),
    }));
    const ingested = await fetch(`${platform.serviceUrl('tracing')}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(await platform.credentialHeaders()) },
      body: JSON.stringify({
        resourceSpans: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: project } }] }, scopeSpans: [{ spans }] }],
      }),
    });
    expect(ingested.status).toBe(200);
    const cursors: Array<string | undefined> = [];
    const walked = [];
    for await (const span of paginateCursor((cursor) => {
      cursors.push(cursor);
      return platform.tracing.GET('/api/projects/{project}/spans', { params: { path: { project }, query: { limit: 2, ...(cursor && { cursor }) } } });
    })) {
      walked.push(span);
    }
    expect(walked.map((span) => span.name).sort()).toEqual(['step-0', 'step-1', 'step-2', 'step-3', 'step-4']);
    expect(cursors.length).toBeGreaterThanOrEqual(3);
    expect(cursors[0]).toBeUndefined();
  });

  it('stops at max and throws the error of a refused page', async () => {
    const first = [];
    for await (const team of paginate((page) => platform.auth.GET('/api/v1/auth/teams', { params: { query: page } }), { pageSize: 1, max: 2 }))
      first.push(team);
    expect(first).toHaveLength(2);
    const anonymous = createPlatformClient({ baseUrl: booted.urls.gateway });
    const pages = paginate((page) => anonymous.auth.GET('/api/v1/auth/teams', { params: { query: page } }));
    expect(await failure(pages.next())).toMatchObject({ status: 401 });
  });
});

describe('streams', () => {
  const node = (id: string, type: string, data: Record<string, unknown>) => ({ id, type, position: { x: 0, y: 0 }, data });

  async function startRun() {
    const workflow = await unwrap(
      platform.workflowEngine.POST('/api/v1/workflows', {
        body: {
          name: uniqueName('sdk-flow'),
          category: 'sdk',
          flow: {
            nodes: [node('check', 'Condition', { condition: 'score > 5', input: { score: 9 } }), node('join', 'Merge', { inputs: ['done'] })],
            edges: [{ source: 'check', target: 'join', sourceHandle: 'true' }],
          },
        },
      }),
    );
    const run = await unwrap(
      platform.workflowEngine.POST('/api/v1/workflows/{workflowId}/execute', {
        params: { path: { workflowId: workflow.id } },
        body: { options: { async: true } },
      }),
    );
    return (run as { executionId: string }).executionId;
  }

  it("iterates an execution's events through the gateway's WebSocket pass-through until it ends", async () => {
    const executionId = await startRun();
    const events = [];
    for await (const event of await executionEvents(platform, executionId)) events.push(event);
    // Node events of parallel writers may interleave; the run's end comes last.
    expect(events.map((event) => `${event.type}:${event.nodeId ?? ''}`).sort()).toEqual([
      'node-completed:check',
      'node-completed:join',
      'node-started:check',
      'node-started:join',
      'workflow-completed:',
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'workflow-completed' });
  });

  it('a refused upgrade throws a PlatformError with its status', async () => {
    const executionId = await startRun();
    const anonymous = createPlatformClient({ baseUrl: booted.urls.gateway, WebSocket: WS });
    const stream = await executionEvents(anonymous, executionId);
    expect(await failure(stream.next())).toMatchObject({ status: 401 });
    const missing = await executionEvents(platform, '00000000-0000-4000-8000-000000000000');
    expect(await failure(missing.next())).toMatchObject({ status: 404 });
  });

  it("iterates the MCP registry's events once subscribed, through the gateway", async () => {
    const events = await registryEvents(platform, ['health-check']);
    try {
      const connection = await unwrap(
        platform.mcpRegistry.POST('/connections', {
          body: {
            name: uniqueName('everything'),
            type: 'server',
            protocol: 'stdio',
            endpoint: { command: 'mcp-server-everything', args: [] },
            capabilities: ['echo'],
          },
        }),
      );
      await unwrap(platform.mcpRegistry.POST('/connections/{connectionId}/health-check', { params: { path: { connectionId: connection.id } } }));
      let seen;
      for await (const event of events) {
        if (event.connectionId === connection.id) {
          seen = event;
          break;
        }
      }
      expect(seen).toMatchObject({ type: 'health-check', connectionId: connection.id, timestamp: expect.any(String) });
    } finally {
      events.close();
    }
  }, 60_000);
});
