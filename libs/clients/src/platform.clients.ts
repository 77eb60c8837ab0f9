import { auth, mesh } from '@platform/contracts';
import { z } from 'zod';
import { ServiceClient, type ClientOptions } from './service-client';

/** Per call: a forwarded user token, a timeout, an abort signal. */
export type PlatformCall = { bearer?: string; timeoutMs?: number; signal?: AbortSignal };
type Options = Omit<ClientOptions, 'service'>;
const enc = encodeURIComponent;

/** The auth service's API-key exchange (`POST /api/v1/auth/api-key`), for keys callers present. */
export class AuthClient {
  readonly http: ServiceClient;
  constructor(options: Options) {
    this.http = new ServiceClient({ service: 'auth', retries: 1, ...options });
  }

  /** Exchanges an API key for an access token; a refused key is an UpstreamError with status 401. */
  exchangeApiKey(apiKey: string, clientId: string, call: PlatformCall = {}): Promise<z.infer<typeof auth.ApiKeyLoginResponse>> {
    return this.http.request('POST', '/api/v1/auth/api-key', {
      ...call,
      body: { api_key: apiKey, client_id: clientId },
      schema: auth.ApiKeyLoginResponse,
      idempotent: true,
    });
  }
}

const MasterAgent = z.object({ id: z.string() }).loose();

/** The master API (`MASTER_URL`, port 3006, base path `/api/v1`): the declared agents. */
export class MasterClient {
  readonly http: ServiceClient;
  constructor(options: Options & { basePath?: string }) {
    this.http = new ServiceClient({ service: 'master', ...options, baseUrl: `${options.baseUrl.replace(/\/+$/, '')}${options.basePath ?? '/api/v1'}` });
  }

  createAgent(manifest: Record<string, unknown>, call: PlatformCall = {}): Promise<z.infer<typeof MasterAgent>> {
    return this.http.request('POST', '/agents', { ...call, body: manifest, schema: MasterAgent });
  }

  replaceAgent(id: string, manifest: Record<string, unknown>, call: PlatformCall = {}): Promise<z.infer<typeof MasterAgent>> {
    return this.http.request('PUT', `/agents/${enc(id)}`, { ...call, body: manifest, schema: MasterAgent, idempotent: true });
  }

  deleteAgent(id: string, call: PlatformCall = {}): Promise<unknown> {
    return this.http.request('DELETE', `/agents/${enc(id)}`, { ...call, idempotent: true });
  }
}

export const MeshRegistration = z.object({ id: z.string() }).loose();
export const MeshSendResult = z.object({ id: z.string(), message_id: z.string(), agent_id: z.string(), state: z.string(), duplicate: z.boolean() }).loose();
export const MeshAgentSummary = z
  .object({
    id: z.string(),
    name: z.string(),
    namespace: z.string().optional(),
    capabilities: z.array(z.string()).default([]),
    endpoint: z.string().nullable().optional(),
    status: z.string().optional(),
    metadata: z.record(z.string(), z.unknown()).default({}),
  })
  .loose();
const MeshAgentList = z.object({ agents: z.array(MeshAgentSummary), total: z.number() }).loose();

/** The agent mesh (`MESH_URL`, port 3005): registration and messages (its README, "not in the spec"). */
export class MeshClient {
  readonly http: ServiceClient;
  constructor(options: Options) {
    this.http = new ServiceClient({ service: 'mesh', ...options });
  }

  register(
    agent: { id: string; name: string; namespace: string; capabilities: string[]; endpoint?: string; metadata?: Record<string, unknown> },
    call: PlatformCall = {},
  ) {
    return this.http.request('POST', '/api/v1/agents', { ...call, body: agent, schema: MeshRegistration, idempotent: true });
  }

  deregister(id: string, call: PlatformCall = {}): Promise<unknown> {
    return this.http.request('DELETE', `/api/v1/agents/${enc(id)}`, { ...call, idempotent: true });
  }

  /** `POST /api/v1/messages`: to an agent (`to`) or a capability; a repeated `message_id` is sent once, so it is safe to retry. */
  send(message: { to?: string; capability?: string; message_id: string; payload: unknown; ttl_ms?: number; from?: string }, call: PlatformCall = {}) {
    return this.http.request('POST', '/api/v1/messages', { ...call, body: message, schema: MeshSendResult, idempotent: true });
  }

  listAgents(query: { capability?: string; status?: string; limit?: number; offset?: number }, call: PlatformCall = {}) {
    return this.http.request('GET', '/api/v1/agents', { ...call, query, schema: MeshAgentList });
  }

  /** `GET /api/v1/routing/table`: capability → the routable agents, with their load and latency. */
  routingTable(call: PlatformCall = {}): Promise<z.infer<typeof mesh.RoutingTable>> {
    return this.http.request('GET', '/api/v1/routing/table', { ...call, schema: mesh.RoutingTable });
  }
}

/**
 * The tracing service (`TRACING_URL`, port 6006). A project exists once a span names it
 * (`openinference.project.name`), so creating one is exporting its first span over OTLP/JSON.
 */
export class TracingClient {
  readonly http: ServiceClient;
  constructor(options: Options) {
    this.http = new ServiceClient({ service: 'tracing', ...options });
  }

  async createProject(project: string, attributes: Record<string, string>, call: PlatformCall = {}): Promise<{ project: string; traceId: string }> {
    const { randomBytes } = await import('node:crypto');
    const traceId = randomBytes(16).toString('hex');
    const now = BigInt(Date.now()) * 1_000_000n;
    const attribute = (key: string, value: string) => ({ key, value: { stringValue: value } });
    const body = {
      resourceSpans: [
        {
          resource: { attributes: [attribute('openinference.project.name', project), attribute('service.name', 'gateway')] },
          scopeSpans: [
            {
              scope: { name: '@platform/gateway' },
              spans: [
                {
                  traceId,
                  spanId: randomBytes(8).toString('hex'),
                  name: 'gateway.project.created',
                  kind: 1,
                  startTimeUnixNano: now.toString(),
                  endTimeUnixNano: now.toString(),
                  attributes: Object.entries(attributes).map(([key, value]) => attribute(key, value)),
                  status: { code: 1 },
                },
              ],
            },
          ],
        },
      ],
    };
    await this.http.request('POST', '/v1/traces', { ...call, body, idempotent: true });
    return { project, traceId };
  }

  /** `DELETE /api/traces?trace_id=`: removes the spans of one trace. */
  deleteTrace(traceId: string, call: PlatformCall = {}): Promise<unknown> {
    return this.http.request('DELETE', '/api/traces', { ...call, query: { trace_id: traceId }, idempotent: true });
  }
}

/** The visual workflow engine (`WORKFLOW_ENGINE_URL`, port 3090): flow-based workflows. */
export class WorkflowEngineClient {
  readonly http: ServiceClient;
  constructor(options: Options) {
    this.http = new ServiceClient({ service: 'workflow-engine', ...options });
  }

  create(workflow: { name: string; description?: string; category?: string; flow: Record<string, unknown> }, call: PlatformCall = {}) {
    return this.http.request('POST', '/api/v1/workflows', { ...call, body: workflow, schema: z.object({ id: z.string() }).loose() });
  }

  execute(id: string, inputs: Record<string, unknown>, call: PlatformCall = {}): Promise<unknown> {
    return this.http.request('POST', `/api/v1/workflows/${enc(id)}/execute`, { ...call, body: { inputs } });
  }
}
