import { bootPlatform, eventually, startFakeOllama, uniqueName, type BootedPlatform, type FakeOllama } from '@platform/testing';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import WebSocket from 'ws';

/**
 * The platform end to end (DESIGN.md, "End to end"): every service as its own process, booted the
 * way `npm run up` boots them, against the real Postgres and Redis, and one story told only
 * through their public APIs.
 */
const ROOT = path.resolve(__dirname, '../../..');
// A database of its own, which each service creates and migrates on start like a fresh install:
// the story is then told on a platform no other test file (or migration in progress) touches.
const hex = (bytes: number) => randomBytes(bytes).toString('hex');

type Json = Record<string, unknown> & { [key: string]: any }; // eslint-disable-line @typescript-eslint/no-explicit-any

interface SpanNode {
  project: string;
  span_id: string;
  parent_span_id: string | null;
  name: string;
  kind: string;
  children: SpanNode[];
}

let platform: BootedPlatform | undefined;
let ollama: FakeOllama;
let token: string;

/** A call to one service's public API; the answer's status and JSON body. */
async function call(url: string, method: string, options: { body?: unknown; headers?: Record<string, string>; bearer?: string } = {}) {
  const response = await fetch(url, {
    method,
    headers: {
      ...(options.body !== undefined && { 'content-type': 'application/json' }),
      authorization: `Bearer ${options.bearer ?? token}`,
      ...options.headers,
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: AbortSignal.timeout(60_000),
  });
  const text = await response.text();
  let body: Json = {};
  try {
    body = text ? (JSON.parse(text) as Json) : {};
  } catch {
    body = { text };
  }
  return { status: response.status, body, headers: response.headers };
}

/** Every message of an execution's WebSocket stream until the server closes it. */
function stream(url: string): Promise<Json[]> {
  const ws = new WebSocket(url, { headers: { authorization: `Bearer ${token}` } });
  const messages: Json[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => (ws.terminate(), reject(new Error(`the stream did not end; got ${JSON.stringify(messages)}`))), 180_000);
    ws.on('message', (data) => messages.push(JSON.parse(data.toString()) as Json));
    ws.on('close', () => (clearTimeout(timer), resolve(messages)));
    ws.on('error', (error) => (clearTimeout(timer), reject(error)));
  });
}

const flatten = (nodes: SpanNode[]): SpanNode[] => nodes.flatMap((node) => [node, ...flatten(node.children)]);

beforeAll(async () => {
  ollama = await startFakeOllama();
  platform = await bootPlatform({
    databaseSuffix: 'e2e',
    env: {
      LOG_LEVEL: 'info',
      OTEL_SDK_DISABLED: 'false',
      OTEL_BSP_SCHEDULE_DELAY: '200',
      OLLAMA_URL: ollama.url,
      OLLAMA_TAGS_TTL_MS: '1',
      MCP_STDIO_ALLOWED_COMMANDS: 'mcp-server-everything',
      MCP_STDIO_PATH: path.join(ROOT, 'node_modules/.bin'),
    },
    timeoutMs: 420_000,
  });
}, 480_000);

afterAll(async () => {
  await platform?.stop();
  // The services' logs of the run, for a failure's post-mortem (tmp/ is git-ignored).
  if (platform) {
    mkdirSync(path.join(ROOT, 'tmp'), { recursive: true });
    writeFileSync(path.join(ROOT, 'tmp/e2e-platform.log'), `${platform.logs.join('\n')}\n`);
  }
  await ollama?.stop();
}, 90_000);

describe('the platform end to end', () => {
  const agentName = uniqueName('summariser');
  let agent: Json;

  it('boots all ten services, each answering its readiness check', async () => {
    expect(Object.keys(platform!.urls).sort()).toEqual([
      'auth',
      'gateway',
      'local-models',
      'master',
      'mcp-registry',
      'mesh',
      'registry',
      'tracing',
      'workers',
      'workflow-engine',
    ]);
    for (const [name, url] of Object.entries(platform!.urls)) {
      const ready = await fetch(`${url}/health/ready`, { signal: AbortSignal.timeout(30_000) });
      expect({ name, status: ready.status }).toEqual({ name, status: 200 });
    }
  });

  it('logs in as the bootstrap admin at auth', async () => {
    const login = await call(`${platform!.urls.auth}/api/v1/auth/login`, 'POST', {
      body: { grant_type: 'password', username: platform!.admin.username, password: platform!.admin.password, client_id: 'e2e' },
      bearer: '',
    });
    expect(login.status).toBe(200);
    expect(login.body).toMatchObject({ token_type: 'Bearer', access_token: expect.any(String) });
    token = login.body.access_token;
    const wrong = await call(`${platform!.urls.auth}/api/v1/auth/login`, 'POST', {
      body: { grant_type: 'password', username: platform!.admin.username, password: 'not-the-password', client_id: 'e2e' },
      bearer: '',
    });
    expect(wrong.status).toBe(401);
  });

  it('publishes an agent through the gateway: the registry, master, mesh and tracing all hold it', async () => {
    const manifest = {
      apiVersion: 'std/v0.4.7',
      kind: 'Agent',
      metadata: { name: agentName, namespace: 'e2e', version: '1.0.0', description: 'Summarises documents' },
      security: {
        tier: 'tier_2_write_limited',
        capabilities: { required: ['network-outbound'], optional: ['tool-execution'] },
        sandboxing: {
          required: true,
          type: 'container',
          resource_limits: { max_memory_mb: 512, max_cpu_cores: 0.5, max_execution_seconds: 120, max_disk_mb: 1024 },
        },
      },
    };
    const created = await call(`${platform!.urls.gateway}/api/v1/agents`, 'POST', { body: { manifest } });
    expect({ status: created.status, body: created.body }).toMatchObject({ status: 201, body: { status: 'active' } });
    agent = created.body;
    expect(Object.fromEntries(agent.steps.map((step: Json) => [step.step, step.status]))).toMatchObject({
      registry: 'done',
      master: 'done',
      mesh: 'done',
      tracing: 'done',
    });
    expect(agent.refs).toMatchObject({ masterId: expect.any(String), meshId: expect.any(String), tracingProject: `agent-e2e-${agentName}` });

    const inRegistry = await call(`${platform!.urls.registry}/api/v1/agents/e2e/${agentName}`, 'GET');
    expect(inRegistry.status).toBe(200);
    expect(JSON.stringify(inRegistry.body)).toContain('1.0.0');

    const inMaster = await call(`${platform!.urls.master}/api/v1/agents/${agent.refs.masterId}`, 'GET');
    expect(inMaster.status).toBe(200);
    expect(inMaster.body).toMatchObject({ namespace: 'e2e', name: agentName });

    // The gateway acted for the admin with a token auth delegated (RFC 8693, the gateway's key as
    // the actor): what the saga created in master and the mesh is the admin's, not the gateway's.
    const admin = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as { sub: string };
    expect(inMaster.body.owner).toBe(admin.sub);
    const inMesh = await call(`${platform!.urls.mesh}/api/v1/agents?namespace=e2e&limit=500`, 'GET');
    expect(inMesh.status).toBe(200);
    const meshed = (inMesh.body.agents as Json[]).find((entry) => entry.id === agent.refs.meshId);
    expect(meshed).toMatchObject({ name: agentName, namespace: 'e2e' });
    expect(JSON.stringify(meshed?.capabilities)).toContain('network-outbound');
    expect(meshed?.owner).toBe(admin.sub);

    const inTracing = await call(`${platform!.urls.tracing}/api/projects/${agent.refs.tracingProject}/spans`, 'GET');
    expect(inTracing.status).toBe(200);
    expect(JSON.stringify(inTracing.body)).toContain('gateway.project.created');
  }, 120_000);

  it('runs a flow that calls a model and an MCP tool, streams its progress, and is found as one trace', async () => {
    // The MCP reference server, registered in the mcp-registry over stdio.
    const capability = uniqueName('greeter');
    const connection = await call(`${platform!.urls['mcp-registry']}/connections`, 'POST', {
      body: {
        name: uniqueName('everything'),
        type: 'server',
        protocol: 'stdio',
        endpoint: { command: 'mcp-server-everything', args: [] },
        capabilities: ['echo', capability],
      },
    });
    expect({ status: connection.status, body: connection.body }).toMatchObject({ status: 201, body: { id: expect.any(String) } });
    // The gateway's discovery finds it, asking the mesh and the mcp-registry as the caller.
    const discovered = await call(`${platform!.urls.gateway}/api/v1/registry/discover?capability=${capability}`, 'GET');
    expect({ status: discovered.status, body: discovered.body }).toMatchObject({
      status: 200,
      body: {
        sources: { registry: { status: 'ok' }, mesh: { status: 'ok' }, 'mcp-registry': { status: 'ok', count: 1 } },
        items: [expect.objectContaining({ source: 'mcp-registry', kind: 'mcp-server', id: connection.body.id })],
      },
    });

    const workflow = await call(`${platform!.urls.gateway}/api/v1/workflows`, 'POST', {
      body: {
        name: uniqueName('greeting'),
        framework: 'flow',
        category: 'e2e',
        flow: {
          nodes: [
            { id: 'ask', type: 'LLMNode', position: { x: 0, y: 0 }, data: { prompt: 'hello platform', model: 'llama3.2:latest' } },
            {
              id: 'tool',
              type: 'MCPToolCall',
              position: { x: 200, y: 0 },
              data: { tool: 'echo', connectionId: connection.body.id, params: { message: '{{ask.completion}}' } },
            },
          ],
          edges: [{ source: 'ask', target: 'tool' }],
        },
      },
    });
    expect({ status: workflow.status, body: workflow.body }).toMatchObject({
      status: 201,
      body: { framework: 'flow', target: 'workflow-engine', remoteId: expect.any(String) },
    });

    // The caller starts the trace; every hop must carry it on.
    const traceId = hex(16);
    const executed = await call(`${platform!.urls.gateway}/api/v1/workflows/${workflow.body.id}/execute`, 'POST', {
      body: { inputs: {} },
      headers: { traceparent: `00-${traceId}-${hex(8)}-01` },
    });
    expect({ status: executed.status, body: executed.body }).toMatchObject({
      status: 200,
      body: { workflowId: workflow.body.id, target: 'workflow-engine', execution: { executionId: expect.any(String) } },
    });
    const executionId = executed.body.execution.executionId as string;

    const ws = `${platform!.urls['workflow-engine'].replace(/^http/, 'ws')}/api/v1/executions/${executionId}/stream`;
    const events = await stream(ws);
    expect(events.map((event) => `${event.type}:${event.nodeId ?? ''}`)).toEqual([
      'node-started:ask',
      'node-completed:ask',
      'node-started:tool',
      'node-completed:tool',
      'workflow-completed:',
    ]);
    expect(events[1].output).toMatchObject({ completion: 'echo: hello platform', model: expect.stringMatching(/^llama3\.2/) });
    expect(events[3].output).toMatchObject({ text: 'Echo: echo: hello platform', connectionId: connection.body.id });
    const generated = ollama.requests.filter((request) => request.path === '/api/generate');
    expect(generated).toHaveLength(1);
    // local-models carried the trace on to the model server too.
    expect(generated[0].headers.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));

    const execution = await call(`${platform!.urls['workflow-engine']}/api/v1/executions/${executionId}`, 'GET');
    // The stored run names the trace it belongs to (the console links a run to it).
    expect(execution.body).toMatchObject({ status: 'completed', result: { tool: { text: 'Echo: echo: hello platform' } }, traceId });

    // One trace in tracing, spanning the gateway, the engine, the model service and the MCP registry:
    // one tree, whose only root is the gateway's span of the call (a child of the caller's span),
    // with a server span of each. Spans arrive in batches, so the trace is read until it is whole.
    const wanted = ['gateway', 'local-models', 'mcp-registry', 'workflow-engine'];
    const shape = (body: Json) => {
      const spans = flatten((body.spans ?? []) as SpanNode[]);
      return {
        roots: ((body.spans ?? []) as SpanNode[]).map((root) => `${root.project}:${root.kind}`),
        servers: [...new Set(spans.filter((span) => span.kind === 'SERVER').map((span) => span.project))].filter((project) => wanted.includes(project)).sort(),
      };
    };
    const expected = { roots: ['gateway:SERVER'], servers: wanted };
    let last: Json = {};
    await eventually(
      async () => {
        const found = await call(`${platform!.urls.tracing}/api/traces/${traceId}`, 'GET');
        last = found.body;
        return found.status === 200 && JSON.stringify(shape(found.body)) === JSON.stringify(expected);
      },
      120_000,
      500,
    ).catch(() => undefined);
    expect({ projects: last.projects, ...shape(last) }).toEqual({ projects: expect.arrayContaining(wanted), ...expected });

    // The registry stops the reference server with its connection.
    expect((await call(`${platform!.urls['mcp-registry']}/connections/${connection.body.id}`, 'DELETE')).status).toBeLessThan(300);
  }, 300_000);

  it('deletes the agent through the gateway: gone from the registry, master and the mesh', async () => {
    const removed = await call(`${platform!.urls.gateway}/api/v1/agents/${agent.id}`, 'DELETE');
    expect({ status: removed.status, body: removed.body }).toEqual({ status: 204, body: {} });
    expect((await call(`${platform!.urls.gateway}/api/v1/agents/${agent.id}`, 'GET')).status).toBe(404);
    expect((await call(`${platform!.urls.registry}/api/v1/agents/e2e/${agentName}`, 'GET')).status).toBe(404);
    expect((await call(`${platform!.urls.master}/api/v1/agents/${agent.refs.masterId}`, 'GET')).status).toBe(404);
    const inMesh = await call(`${platform!.urls.mesh}/api/v1/agents?namespace=e2e&limit=500`, 'GET');
    expect((inMesh.body.agents as Json[]).map((entry) => entry.id)).not.toContain(agent.refs.meshId);
  }, 120_000);
});

/** What differs between two OpenAPI documents, path by path, for a drift message a person can act on. */
function pathDrift(committed: Json, served: Json): string {
  const paths = (document: Json) => (document.paths ?? {}) as Record<string, unknown>;
  const before = paths(committed);
  const after = paths(served);
  const added = Object.keys(after).filter((key) => !(key in before));
  const removed = Object.keys(before).filter((key) => !(key in after));
  const changed = Object.keys(after).filter((key) => key in before && JSON.stringify(after[key]) !== JSON.stringify(before[key]));
  const parts = [
    added.length && `added ${added.join(', ')}`,
    removed.length && `removed ${removed.join(', ')}`,
    changed.length && `changed ${changed.join(', ')}`,
  ];
  return parts.filter(Boolean).join('; ') || 'outside paths (info, components)';
}

describe("the SDK's generated clients (libs/sdk)", () => {
  it("were generated from every service's current OpenAPI document", async () => {
    const drifted: string[] = [];
    for (const [service, url] of Object.entries(platform!.urls).sort()) {
      const served = (await call(`${url}/openapi.json`, 'GET')).body;
      const file = path.join(ROOT, 'libs/sdk/openapi', `${service}.json`);
      const committed = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Json) : {};
      if (JSON.stringify(served) !== JSON.stringify(committed)) drifted.push(`${service}: ${pathDrift(committed, served)}`);
    }
    if (drifted.length) {
      throw new Error(
        `The SDK is out of date with these services' /openapi.json:\n  ${drifted.join('\n  ')}\nRun \`npm run sdk:generate\` and commit libs/sdk.`,
      );
    }
  });
});
