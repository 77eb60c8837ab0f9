import { closeLocally, listenLocally, TestIssuer } from '@platform/testing';
import { randomUUID } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';

export interface Recorded {
  method: string;
  path: string;
  authorization?: string;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}
type Answer = { status: number; body?: unknown } | undefined;
type Handler = (req: Recorded, match: RegExpExecArray) => Answer | Promise<Answer>;

/**
 * A small HTTP server started inside a test that stands for a system the gateway calls: routes
 * by method and path pattern, every request recorded, and `failWith` to make it answer an error
 * (a dependency down) for chosen paths.
 */
export class FakeServer {
  readonly requests: Recorded[] = [];
  private readonly routes: Array<{ method: string; pattern: RegExp; handler: Handler }> = [];
  private readonly server = http.createServer((req, res) => void this.handle(req, res));
  /** Answer matching requests with this status (`'METHOD /path-regex'` → status). */
  failures = new Map<string, number>();
  url = '';

  /** `record: false` keeps no request (benchmarks). */
  constructor(
    readonly name: string,
    private readonly options: { record?: boolean } = {},
  ) {}

  on(method: string, pattern: RegExp, handler: Handler): this {
    this.routes.push({ method, pattern, handler });
    return this;
  }

  /** TCP connections accepted so far (keep-alive clients open few). */
  connections = 0;

  async start(): Promise<this> {
    this.server.on('connection', () => this.connections++);
    this.url = await listenLocally(this.server);
    return this;
  }

  async stop(): Promise<void> {
    await closeLocally(this.server);
  }

  fail(method: string, pathPattern: string, status: number): void {
    this.failures.set(`${method} ${pathPattern}`, status);
  }

  calls(method: string, pathPrefix: string): Recorded[] {
    return this.requests.filter((request) => request.method === method && request.path.startsWith(pathPrefix));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // form bodies stay text
    }
    const recorded: Recorded = { method: req.method ?? 'GET', path: req.url ?? '/', authorization: req.headers.authorization, headers: req.headers, body };
    if (this.options.record !== false) this.requests.push(recorded);
    const send = (status: number, payload?: unknown): void => {
      res.statusCode = status;
      if (payload !== undefined) res.setHeader('content-type', 'application/json');
      res.end(payload === undefined ? undefined : JSON.stringify(payload));
    };
    for (const [key, status] of this.failures) {
      const [method, pattern] = key.split(' ');
      if (method === recorded.method && new RegExp(pattern).test(recorded.path))
        return send(status, { error: { type: 'api_error', code: 'failure', message: `${this.name} fails on purpose` } });
    }
    const pathname = recorded.path.split('?')[0];
    for (const route of this.routes) {
      const match = route.pattern.exec(pathname);
      if (route.method === recorded.method && match) {
        const answer = await route.handler(recorded, match);
        if (answer) return send(answer.status, answer.body);
      }
    }
    send(404, { error: { type: 'not_found_error', code: 'route_not_found', message: `${this.name}: no route ${recorded.method} ${pathname}` } });
  }
}

export interface FakesOptions {
  /** Keep every request for assertions (default); benchmarks turn it off. */
  record?: boolean;
  /** How long a mesh "agent" takes before it replies (default 20 ms). */
  replyDelayMs?: number;
}

/**
 * Every system the gateway talks to, as fakes, plus auth's API-key exchange signed by a TestIssuer.
 * The gateway tests and its benchmark (tools/bench/gateway.bench.ts) share them.
 */
export class Fakes {
  readonly issuer = new TestIssuer();
  readonly auth: FakeServer;
  readonly registry: FakeServer;
  readonly master: FakeServer;
  readonly mesh: FakeServer;
  readonly tracing: FakeServer;
  readonly workers: FakeServer;
  readonly workflowEngine: FakeServer;
  readonly mcpRegistry: FakeServer;
  readonly kubernetes: FakeServer;
  readonly cms: FakeServer;
  readonly scm: FakeServer;
  private readonly replyDelayMs: number;

  constructor(options: FakesOptions = {}) {
    const fake = (name: string) => new FakeServer(name, { record: options.record });
    this.auth = fake('auth');
    this.registry = fake('registry');
    this.master = fake('master');
    this.mesh = fake('mesh');
    this.tracing = fake('tracing');
    this.workers = fake('workers');
    this.workflowEngine = fake('workflow-engine');
    this.mcpRegistry = fake('mcp-registry');
    this.kubernetes = fake('kubernetes');
    this.cms = fake('cms');
    this.scm = fake('scm');
    this.replyDelayMs = options.replyDelayMs ?? 20;
  }
  /** API keys auth accepts, with the token's subject and permissions. */
  readonly apiKeys = new Map<string, { sub: string; permissions: string[] }>();
  /** Mesh agents reply to tasks with this (set `undefined` to stay silent). */
  agentReply: ((payload: Record<string, unknown>) => unknown) | undefined = (payload) => ({ output: { echo: payload.input ?? payload.instruction } });
  readonly k8sObjects = new Map<string, Record<string, unknown>>();
  /** Token exchanges the fake auth granted: whose token, for which actor. */
  readonly exchanges: Array<{ subject: string; actor: string }> = [];
  readonly cmsItems = new Map<string, Array<{ type: string; id: string; attributes: Record<string, unknown> }>>();

  async start(): Promise<this> {
    await this.issuer.start();
    this.auth.on('POST', /^\/api\/v1\/auth\/api-key$/, (req) => {
      const { api_key: key } = req.body as { api_key: string };
      const holder = this.apiKeys.get(key);
      if (!holder) return { status: 401, body: { error: { type: 'authentication_error', code: 'invalid_api_key', message: 'Invalid API key' } } };
      return {
        status: 200,
        body: {
          access_token: this.issuer.token({ sub: holder.sub, permissions: holder.permissions }),
          token_type: 'Bearer',
          expires_in: 3600,
          service: holder.sub,
          permissions: holder.permissions,
        },
      };
    });
    // RFC 8693 as auth serves it (delegation only): the subject's identity, teams and permissions,
    // the actor (the bearer, which needs tokens:exchange) in `act`. Tokens are read, not verified:
    // only this test's issuer signs them.
    this.auth.on('POST', /^\/api\/v1\/auth\/token$/, (req) => {
      const body = req.body as { grant_type?: string; subject_token?: string };
      const actor = claimsOf(req.authorization?.replace(/^Bearer /, ''));
      const subject = claimsOf(body.subject_token);
      if (body.grant_type !== 'urn:ietf:params:oauth:grant-type:token-exchange' || !subject)
        return { status: 400, body: { error: 'invalid_grant', error_description: 'no subject token' } };
      if (!actor || !(actor.permissions as string[]).includes('tokens:exchange'))
        return { status: 403, body: { error: { type: 'authorization_error', code: 'insufficient_permissions', message: 'tokens:exchange' } } };
      this.exchanges.push({ subject: subject.sub as string, actor: actor.sub as string });
      const token = this.issuer.token({
        sub: subject.sub as string,
        permissions: subject.permissions as string[],
        ...(subject.teams ? { teams: subject.teams as Array<{ id: string; role: 'viewer' | 'editor' | 'admin' }> } : {}),
        act: { sub: actor.sub as string, client_id: 'gateway' },
      });
      return {
        status: 200,
        body: { access_token: token, issued_token_type: 'urn:ietf:params:oauth:token-type:access_token', token_type: 'Bearer', expires_in: 900 },
      };
    });
    this.registry
      .on('POST', /^\/api\/v1\/agents$/, (req) => {
        const metadata = (req.body as { metadata: { namespace: string; name: string; version: string } }).metadata;
        return { status: 201, body: { agent: registryAgent(metadata), version: registryVersion(metadata), created: true } };
      })
      .on('POST', /^\/api\/v1\/agents\/([^/]+)\/([^/]+)\/versions$/, (req) => {
        const metadata = (req.body as { metadata: { namespace: string; name: string; version: string } }).metadata;
        return { status: 201, body: { agent: registryAgent(metadata), version: registryVersion(metadata), created: false } };
      })
      .on('DELETE', /^\/api\/v1\/agents\//, () => ({ status: 204 }))
      .on('GET', /^\/api\/v1\/agents$/, () => ({
        status: 200,
        body: {
          items: [
            { ...registryAgent({ namespace: 'acme', name: 'summarizer', version: '1.0.0' }), capabilities: ['network-outbound'], agentType: 'langchain' },
          ],
          total: 1,
          limit: 50,
          offset: 0,
        },
      }));
    this.master.on('POST', /^\/api\/v1\/agents$/, () => ({ status: 201, body: { id: randomUUID() } }));
    this.master.on('PUT', /^\/api\/v1\/agents\/([^/]+)$/, (_req, match) => ({ status: 200, body: { id: match[1] } }));
    this.master.on('DELETE', /^\/api\/v1\/agents\//, () => ({ status: 204 }));
    this.mesh
      .on('POST', /^\/api\/v1\/agents$/, (req) => ({ status: 201, body: { id: (req.body as { id: string }).id } }))
      .on('DELETE', /^\/api\/v1\/agents\//, () => ({ status: 204 }))
      .on('GET', /^\/api\/v1\/agents$/, () => ({
        status: 200,
        body: {
          agents: [
            {
              id: 'live-1',
              name: 'summarizer',
              namespace: 'acme',
              capabilities: ['summarize'],
              endpoint: 'http://10.0.0.5:8080',
              status: 'passing',
              metadata: { framework: 'langchain' },
            },
          ],
          total: 1,
          limit: 50,
          offset: 0,
        },
      }))
      .on('POST', /^\/api\/v1\/messages$/, (req) => {
        const message = req.body as { to?: string; capability?: string; message_id: string; payload: Record<string, unknown> };
        const agentId = message.to ?? `agent-for-${message.capability}`;
        const reply = this.agentReply?.(message.payload);
        // The "agent" answers its task at the reply URL it received, a moment later.
        if (reply !== undefined && typeof message.payload.reply_to === 'string') {
          const answer = () =>
            void fetch(message.payload.reply_to as string, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify(reply),
            })
              .then((response) => response.arrayBuffer())
              .catch(() => undefined);
          if (this.replyDelayMs > 0) setTimeout(answer, this.replyDelayMs);
          else setImmediate(answer);
        }
        return { status: 202, body: { id: randomUUID(), message_id: message.message_id, agent_id: agentId, state: 'queued', duplicate: false } };
      });
    this.tracing.on('POST', /^\/v1\/traces$/, () => ({ status: 200, body: {} })).on('DELETE', /^\/api\/traces$/, () => ({ status: 200, body: { deleted: 1 } }));
    this.workflowEngine
      .on('POST', /^\/api\/v1\/workflows$/, () => ({ status: 201, body: { id: randomUUID(), status: 'active', version: '1' } }))
      .on('POST', /^\/api\/v1\/workflows\/([^/]+)\/execute$/, (_req, match) => ({
        status: 202,
        body: { executionId: randomUUID(), workflowId: match[1], status: 'running' },
      }));
    // The workers service's answer as its contract (StartedRun) has it.
    this.workers.on('POST', /^\/api\/v1\/workflows$/, (request) => ({
      status: 202,
      body: {
        workflow_id: randomUUID(),
        name: (request.body as { name?: string })?.name ?? 'workflow',
        version: 1,
        state: 'pending',
        error: null,
        blocked_steps: [],
        trace_id: '0'.repeat(32),
        created_at: new Date().toISOString(),
        started_at: null,
        finished_at: null,
        pinned: false,
        steps: ((request.body as { steps?: unknown[] })?.steps ?? []).length,
        owner: 'the-caller',
        team: (request.body as { team?: string })?.team ?? null,
      },
    }));
    this.mcpRegistry.on('POST', /^\/connections\/discover$/, () => ({
      status: 200,
      body: {
        connections: [
          {
            id: randomUUID(),
            name: 'everything',
            protocol: 'stdio',
            capabilities: ['tools'],
            health: { status: 'healthy', uptime: 10 },
            load: 0,
            endpoint: { command: 'mcp-server-everything' },
          },
        ],
        totalMatching: 1,
        loadBalanced: true,
        strategy: 'least-loaded',
      },
    }));
    this.kubernetes
      .on('POST', /^\/(apis\/apps\/v1|api\/v1)\/namespaces\/([^/]+)\/(deployments|services)$/, (req, match) => {
        const object = req.body as { metadata: { name: string } };
        const key = `${match[3]}/${match[2]}/${object.metadata.name}`;
        if (this.k8sObjects.has(key)) return { status: 409, body: { kind: 'Status', reason: 'AlreadyExists', code: 409 } };
        const stored: Record<string, unknown> = { ...object, metadata: { ...object.metadata, resourceVersion: '1' } };
        // The cluster gives a Service its IP, which a replacement must carry.
        if (match[3] === 'services') stored.spec = { ...(object as { spec?: object }).spec, clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10'] };
        this.k8sObjects.set(key, stored);
        return { status: 201, body: this.k8sObjects.get(key) };
      })
      .on('GET', /^\/(apis\/apps\/v1|api\/v1)\/namespaces\/([^/]+)\/(deployments|services)\/([^/]+)$/, (_req, match) => {
        const found = this.k8sObjects.get(`${match[3]}/${match[2]}/${match[4]}`);
        return found ? { status: 200, body: found } : { status: 404, body: { kind: 'Status', code: 404 } };
      })
      .on('PUT', /^\/(apis\/apps\/v1|api\/v1)\/namespaces\/([^/]+)\/(deployments|services)\/([^/]+)$/, (req, match) => {
        this.k8sObjects.set(`${match[3]}/${match[2]}/${match[4]}`, req.body as Record<string, unknown>);
        return { status: 200, body: req.body };
      })
      .on('DELETE', /^\/(apis\/apps\/v1|api\/v1)\/namespaces\/([^/]+)\/(deployments|services)\/([^/]+)$/, (_req, match) => {
        const key = `${match[3]}/${match[2]}/${match[4]}`;
        if (!this.k8sObjects.delete(key)) return { status: 404, body: { kind: 'Status', code: 404 } };
        return { status: 200, body: { kind: 'Status', status: 'Success' } };
      });
    this.cms
      .on('POST', /^\/jsonapi\/(node\/[a-z_]+|user\/user)$/, (req, match) => {
        const data = (req.body as { data: { type: string; attributes: Record<string, unknown> } }).data;
        const item = { type: data.type, id: randomUUID(), attributes: data.attributes };
        this.cmsItems.set(match[1], [...(this.cmsItems.get(match[1]) ?? []), item]);
        return { status: 201, body: { data: item } };
      })
      .on('GET', /^\/jsonapi\/(node\/[a-z_]+|user\/user)$/, (req, match) => {
        const status = new URL(req.path, 'http://cms').searchParams.get('filter[status]');
        const items = (this.cmsItems.get(match[1]) ?? []).filter((item) => status === null || item.attributes.status === (status === '1'));
        return { status: 200, body: { data: items, links: {} } };
      });
    this.scm
      .on('POST', /^\/api\/v4\/projects\/([^/]+)\/pipeline$/, (req) => ({
        status: 201,
        body: { id: 41, ref: (req.body as { ref: string }).ref, status: 'created', web_url: `${this.scm.url}/p/41`, created_at: new Date().toISOString() },
      }))
      .on('GET', /^\/api\/v4\/projects\/([^/]+)\/pipelines$/, () => ({
        status: 200,
        body: [{ id: 41, ref: 'main', status: 'success', web_url: null, created_at: null }],
      }))
      .on('GET', /^\/api\/v4\/(groups|projects)\/([^/]+)\/packages$/, () => ({
        status: 200,
        body: [{ id: 7, name: '@acme/agent-kit', version: '1.2.0', package_type: 'npm', created_at: null }],
      }));
    await Promise.all(this.servers().map((server) => server.start()));
    return this;
  }

  servers(): FakeServer[] {
    return [
      this.auth,
      this.registry,
      this.master,
      this.mesh,
      this.tracing,
      this.workers,
      this.workflowEngine,
      this.mcpRegistry,
      this.kubernetes,
      this.cms,
      this.scm,
    ];
  }

  async stop(): Promise<void> {
    await Promise.all(this.servers().map((server) => server.stop()));
    await this.issuer.stop();
  }

  /** The gateway's environment pointing at these fakes. */
  env(): Record<string, string> {
    return {
      AUTH_URL: this.auth.url,
      REGISTRY_URL: this.registry.url,
      MASTER_URL: this.master.url,
      MESH_URL: this.mesh.url,
      TRACING_URL: this.tracing.url,
      WORKERS_URL: this.workers.url,
      WORKFLOW_ENGINE_URL: this.workflowEngine.url,
      MCP_REGISTRY_URL: this.mcpRegistry.url,
      CMS_URL: this.cms.url,
      CMS_API_KEY: 'cms-test-key',
      SCM_URL: this.scm.url,
      SCM_TOKEN: 'scm-test-token',
      GATEWAY_K8S_API_URL: this.kubernetes.url,
      OUTBOUND_ALLOW_PRIVATE: 'true',
    };
  }
}

/** The claims of a JWT, unverified (the fakes only see tokens of the test's own issuer). */
export function claimsOf(token: string | undefined): Record<string, unknown> | undefined {
  const payload = token?.split('.')[1];
  if (!payload) return undefined;
  try {
    return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

function registryAgent(metadata: { namespace: string; name: string; version: string }) {
  const now = new Date().toISOString();
  return {
    namespace: metadata.namespace,
    name: metadata.name,
    owner: 'someone',
    displayName: null,
    summary: null,
    homepage: null,
    repository: null,
    keywords: [],
    compliance: [],
    latestVersion: metadata.version,
    description: null,
    kind: 'Agent',
    agentKind: null,
    agentType: null,
    tier: null,
    status: 'active',
    capabilities: [],
    tags: [],
    labels: {},
    certified: false,
    certifiedVersion: null,
    createdAt: now,
    updatedAt: now,
  };
}

function registryVersion(metadata: { namespace: string; name: string; version: string }) {
  return {
    namespace: metadata.namespace,
    name: metadata.name,
    version: metadata.version,
    prerelease: false,
    latest: true,
    format: 'json',
    digest: 'sha256:0',
    size: 1,
    schemaVersion: '0.4.7',
    warnings: [],
    publishedBy: 'someone',
    publishedAt: new Date().toISOString(),
    unpublished: false,
    unpublishedAt: null,
    certification: null,
    manifestUrl: '/x',
  };
}
