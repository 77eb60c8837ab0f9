import {
  tenancyCallers,
  tenancyViolations,
  unclassifiedRoutes,
  unservedRoutes,
  type TenancyCallers,
  type TenancyCase,
  type TenancyTable,
} from '@platform/testing';
import { manifest, startGateway, type Gateway } from './harness';

/**
 * The platform's ownership rule over every HTTP route of the gateway (DESIGN.md, "Who owns what"):
 * each route acting on a user's record is tried as its owner, a viewer and an editor of its team,
 * a stranger and an admin. A record is one of the gateway's four kinds, each created fresh by its
 * owner and shared with the team.
 */
type Kind = 'agent' | 'workflow' | 'site' | 'session';
type Made = { id: string; taskId?: string };

const api = '/api/v1';
const page = (body: unknown) => (body as { items: Array<{ id: string }> }).items;
const lists = (body: unknown, made: Made) => page(body).some((item) => item.id === made.id);
const routes: Record<string, TenancyCase<Made> & { kind?: Kind }> = {
  'POST /api/v1/agents': { exempt: 'creates an agent owned by the caller (team sharing: tested below)' },
  'GET /api/v1/agents': { kind: 'agent', access: 'list', request: () => ({ path: `${api}/agents?limit=500` }), lists },
  'GET /api/v1/agents/{agentId}': { kind: 'agent', access: 'read', request: (agent) => ({ path: `${api}/agents/${agent.id}` }) },
  'PUT /api/v1/agents/{agentId}': {
    kind: 'agent',
    access: 'write',
    request: (agent) => ({ path: `${api}/agents/${agent.id}`, body: { deployment: { replicas: 2 } } }),
  },
  'DELETE /api/v1/agents/{agentId}': { kind: 'agent', access: 'write', request: (agent) => ({ path: `${api}/agents/${agent.id}` }) },
  'POST /api/v1/agents/{agentId}/execute': {
    kind: 'agent',
    access: 'write',
    request: (agent) => ({ path: `${api}/agents/${agent.id}/execute`, body: { input: 'hello', timeout_ms: 5000 } }),
  },
  'POST /api/v1/workflows': { exempt: 'creates a workflow owned by the caller' },
  'GET /api/v1/workflows': { kind: 'workflow', access: 'list', request: () => ({ path: `${api}/workflows?limit=500` }), lists },
  'POST /api/v1/workflows/{workflowId}/execute': {
    kind: 'workflow',
    access: 'write',
    request: (workflow) => ({ path: `${api}/workflows/${workflow.id}/execute`, body: { inputs: {} } }),
  },
  'POST /api/v1/cms/content': { exempt: "content of the external CMS, not a platform user's record; cms:write guards it" },
  'GET /api/v1/cms/content': { exempt: "content of the external CMS, not a platform user's record; cms:read guards it" },
  'POST /api/v1/cms/users': { exempt: 'CMS users: cms:admin only' },
  'GET /api/v1/cms/users': { exempt: 'CMS users: cms:admin only' },
  'POST /api/v1/cms/sites': { exempt: 'creates a site job owned by the caller' },
  'GET /api/v1/cms/sites/{siteId}': { kind: 'site', access: 'read', request: (site) => ({ path: `${api}/cms/sites/${site.id}` }) },
  'POST /api/v1/studio/sessions': { exempt: 'creates a session owned by the caller' },
  'GET /api/v1/studio/sessions': { kind: 'session', access: 'list', request: () => ({ path: `${api}/studio/sessions?limit=500` }), lists },
  'GET /api/v1/studio/sessions/{sessionId}': { kind: 'session', access: 'read', request: (session) => ({ path: `${api}/studio/sessions/${session.id}` }) },
  'POST /api/v1/studio/sessions/{sessionId}/tasks': {
    kind: 'session',
    access: 'write',
    request: (session) => ({ path: `${api}/studio/sessions/${session.id}/tasks`, body: { instruction: 'refactor' } }),
  },
  'GET /api/v1/studio/sessions/{sessionId}/tasks/{taskId}': {
    kind: 'session',
    access: 'read',
    request: (session) => ({ path: `${api}/studio/sessions/${session.id}/tasks/${session.taskId}` }),
  },
  'POST /api/v1/scm/pipelines': { exempt: "the external source-control server's pipelines, not a platform user's record; scm:write guards them" },
  'GET /api/v1/scm/pipelines': { exempt: "the external source-control server's pipelines; scm:read guards them" },
  'GET /api/v1/scm/packages': { exempt: "the external source-control server's packages; scm:read guards them" },
  'GET /api/v1/registry/discover': { exempt: 'a merged catalogue of registry, mesh and mcp-registry, each answering what it shows' },
  'POST /api/v1/replies/{token}': { exempt: "an agent's answer, authorised by the signed token of its task, not a user's call" },
  'POST /v1/chat/completions': { exempt: "runs a model of the shared catalogue for the caller; only the caller's own allow-list, budget and usage apply" },
  'POST /v1/embeddings': { exempt: "runs a model of the shared catalogue for the caller; only the caller's own allow-list, budget and usage apply" },
  'GET /v1/models': { exempt: "the shared catalogue, less what the caller's own allow-list leaves out" },
  'PUT /api/v1/model-access/{subject}': { exempt: "the operator's policy for a caller: gateway:admin only (tested in models.test.ts)" },
  'GET /api/v1/model-access/{subject}': { exempt: 'a caller reads its own access and usage, gateway:admin anyone’s (tested in models.test.ts)' },
  'DELETE /api/v1/model-access/{subject}': { exempt: "the operator's policy for a caller: gateway:admin only (tested in models.test.ts)" },
  ...Object.fromEntries(
    ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].map((method) => [
      `${method} /api/v1/platform/{service}/{path}`,
      { exempt: "the pass-through: the service's own route with the caller's token, classified in that service's tenancy test" },
    ]),
  ),
  'POST /api/v1/console/session': { exempt: "signs the console in at auth: the caller's own session, no record of anyone's" },
  'POST /api/v1/console/session/refresh': { exempt: "rotates the session cookie's own refresh token at auth" },
  'DELETE /api/v1/console/session': { exempt: "revokes the session cookie's own refresh token at auth" },
  'GET /api/v1/console/providers': { exempt: 'public: the identity providers the console offers' },
  'GET /api/v1/console/oauth/{provider}': { exempt: 'public: starts a sign-in at an identity provider' },
  'GET /api/v1/console/oauth/{provider}/callback': { exempt: "public: the identity provider's redirect back, bound to the browser's state cookie" },
};

const PERMISSIONS = [
  'agents:read',
  'agents:write',
  'agents:execute',
  'workflows:read',
  'workflows:write',
  'workflows:execute',
  'cms:read',
  'cms:write',
  'studio:read',
  'studio:write',
];

describe('tenancy: the ownership rule on every gateway route', () => {
  let g: Gateway;
  let callers: TenancyCallers;
  const tables = {} as Record<Kind, TenancyTable<Made>>;

  beforeAll(async () => {
    g = await startGateway();
    g.fakes.agentReply = () => ({ output: 'done' });
    // One admin permission per kind: the admin caller holds all of them.
    callers = tenancyCallers(g.issuer, { permissions: PERMISSIONS, admin: 'agents:admin' });
    callers.admin.auth = g.issuer.bearer([...PERMISSIONS, 'agents:admin', 'workflows:admin', 'cms:admin', 'studio:admin'], { sub: callers.admin.sub });
    const post = async (path: string, owner: string, team: string, body: object): Promise<{ id: string }> => {
      // The owner shares with a team they edit (the table's owner is not in it otherwise).
      const auth = g.issuer.bearer(PERMISSIONS, { sub: owner, teams: [{ id: team, role: 'editor' }] });
      const response = await fetch(`${g.service.url}${api}${path}`, {
        method: 'POST',
        headers: { authorization: auth, 'content-type': 'application/json' },
        body: JSON.stringify({ ...body, team }),
      });
      const created = (await response.json()) as { id: string; owner: string; team: string };
      if (response.status >= 300 || created.owner !== owner || created.team !== team)
        throw new Error(`POST ${path}: ${response.status} ${JSON.stringify(created)}`);
      return created;
    };
    const make = {
      agent: ({ owner, team }: TenancyCallers) =>
        post('/agents', owner.sub, team, { manifest: manifest({ namespace: 'tenancy' }), deployment: { endpoint: 'http://127.0.0.1:9/agent' } }),
      workflow: ({ owner, team }: TenancyCallers) =>
        post('/workflows', owner.sub, team, { name: 'tenancy', framework: 'flow', flow: { nodes: [], edges: [] } }),
      site: ({ owner, team }: TenancyCallers) => post('/cms/sites', owner.sub, team, { name: 'tenancy', pages: [{ title: 'Home' }] }),
      session: async ({ owner, team }: TenancyCallers) => {
        const session = await post('/studio/sessions', owner.sub, team, { name: 'tenancy' });
        const task = await fetch(`${g.service.url}${api}/studio/sessions/${session.id}/tasks`, {
          method: 'POST',
          headers: { authorization: owner.auth, 'content-type': 'application/json' },
          body: JSON.stringify({ instruction: 'first' }),
        });
        return { id: session.id, taskId: ((await task.json()) as { id: string }).id };
      },
    };
    for (const kind of Object.keys(make) as Kind[]) tables[kind] = { baseUrl: g.service.url, callers, create: make[kind] };
  });
  afterAll(() => g.stop());

  it('classifies every route the gateway serves, and names none it does not', async () => {
    expect(await unclassifiedRoutes(g.service.url, routes)).toEqual([]);
    expect(await unservedRoutes(g.service.url, routes)).toEqual([]);
  });

  it.each(Object.entries(routes))('%s', async (route, rule) => {
    const table = 'kind' in rule && rule.kind ? tables[rule.kind] : tables.agent;
    expect(await tenancyViolations(table, route, rule)).toEqual([]);
  });
});

describe('sharing with a team when creating', () => {
  let g: Gateway;
  beforeAll(async () => {
    g = await startGateway();
  });
  afterAll(() => g.stop());

  it('takes a team only from an editor of it (403 otherwise) and shows owner and team', async () => {
    const viewer = g.issuer.bearer(['studio:write'], { sub: 'viewer-of-blue', teams: [{ id: 'blue', role: 'viewer' }] });
    const refused = await fetch(`${g.service.url}${api}/studio/sessions`, {
      method: 'POST',
      headers: { authorization: viewer, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'shared', team: 'blue' }),
    });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { details: unknown } }).error.details).toMatchObject({ reason: 'not_team_editor', team: 'blue' });
    const editor = g.issuer.bearer(['studio:write'], { sub: 'editor-of-blue', teams: [{ id: 'blue', role: 'editor' }] });
    const shared = await fetch(`${g.service.url}${api}/studio/sessions`, {
      method: 'POST',
      headers: { authorization: editor, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'shared', team: 'blue' }),
    });
    expect(shared.status).toBe(201);
    expect(await shared.json()).toMatchObject({ owner: 'editor-of-blue', team: 'blue' });
  });
});
