import {
  FakeCms,
  tenancyCallers,
  tenancyViolations,
  unclassifiedRoutes,
  uniqueName,
  unservedRoutes,
  type TenancyCallers,
  type TenancyCase,
  type TenancyTable,
} from '@platform/testing';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { startHarness, type Harness } from './fixtures';
import { Gate, startHttpMcpServer, type RunningServer } from './mcp-servers';

/** A connection of the table: its id, its unique name and a capability only it declares. */
interface Owned {
  id: string;
  name: string;
  capability: string;
}

const TOOL = 'lookup';
const PERMISSIONS = ['mcp:read', 'mcp:write'];
const API_KEY = 'tenancy-cms-key';
const BUNDLE = 'mcp_connection';

/**
 * The platform's tenancy table over every HTTP route of the registry (DESIGN.md, "Who owns
 * what"): each route is called by the owner of a fresh connection shared with a team, a viewer and
 * an editor of that team, a stranger and an `mcp:admin`, all holding `mcp:read` and `mcp:write`.
 * Reads, lists, discovery and statistics show a connection to its owner, its team and admins only;
 * changes, checks and tool calls (execute) need the owner, a team editor or an admin.
 */
describe('tenancy: who reaches whose connections', () => {
  let h: Harness;
  let server: RunningServer;
  let cms: FakeCms;
  let callers: TenancyCallers;
  let table: TenancyTable<Owned>;
  const gate = new Gate();

  const routes: Record<string, TenancyCase<Owned>> = {
    'POST /connections': { exempt: "registers a connection of the caller's own (a team only one they edit: tested below)" },
    'GET /connections': {
      access: 'list',
      request: (c) => ({ path: `/connections?capability=${c.capability}` }),
      lists: (body, c) => (body as { connections: Array<{ id: string }> }).connections.some((listed) => listed.id === c.id),
    },
    'GET /connections/{connectionId}': { access: 'read', request: (c) => ({ path: `/connections/${c.id}` }) },
    'PATCH /connections/{connectionId}': { access: 'write', request: (c) => ({ path: `/connections/${c.id}`, body: { metadata: { touched: true } } }) },
    'DELETE /connections/{connectionId}': { access: 'write', request: (c) => ({ path: `/connections/${c.id}` }) },
    'POST /connections/discover': {
      access: 'list',
      request: (c) => ({ path: '/connections/discover', body: { capabilities: [c.capability] } }),
      lists: (body, c) => (body as { connections: Array<{ id: string }> }).connections.some((found) => found.id === c.id),
    },
    'POST /connections/{connectionId}/health-check': { access: 'write', request: (c) => ({ path: `/connections/${c.id}/health-check` }) },
    // Many connections at once: one the caller may not read is reported exactly as a missing one
    // (listed here); one they may only read is refused, not checked (tested below).
    'POST /connections/health-check/batch': {
      access: 'list',
      request: (c) => ({ path: '/connections/health-check/batch', body: { connectionIds: [c.id] } }),
      lists: (body) => (body as { results: Array<{ error?: string }> }).results[0].error !== 'no such connection',
    },
    'POST /connections/{connectionId}/tools/{tool}/call': {
      access: 'write',
      request: (c) => ({ path: `/connections/${c.id}/tools/${TOOL}/call`, body: { arguments: { key: 'k' } } }),
    },
    'GET /capabilities': {
      access: 'list',
      request: () => ({ path: '/capabilities' }),
      lists: (body, c) => (body as { capabilities: Array<{ name: string }> }).capabilities.some((capability) => capability.name === c.capability),
    },
    // Counts only: the table's stranger holds no connection and shares no team, so sees none at all.
    'GET /registry/stats': {
      access: 'list',
      request: () => ({ path: '/registry/stats' }),
      lists: (body) => (body as { connections: { total: number } }).connections.total > 0,
    },
    'GET /registry/export': {
      access: 'list',
      request: () => ({ path: '/registry/export' }),
      lists: (body, c) => (body as { connections: Array<{ name: string }> }).connections.some((exported) => exported.name === c.name),
    },
    'POST /registry/import': {
      exempt: "registers the caller's own connections; replacing one by its (taken) name answers 403 to whoever may not change it: tested below",
    },
    'GET /load-balancing/distribution': {
      access: 'list',
      request: () => ({ path: '/load-balancing/distribution' }),
      lists: (body, c) => (body as { connections: Array<{ id: string }> }).connections.some((listed) => listed.id === c.id),
    },
    // Pushes the connections the caller may read to the caller's CMS: listed when it arrived there.
    'POST /cms/sync': {
      access: 'list',
      request: () => ({ path: '/cms/sync', body: { cmsEndpoint: `${cms.url}/jsonapi/node/${BUNDLE}`, apiKey: API_KEY, syncMode: 'push' } }),
      lists: (_body, c) => [...cms.nodes.values()].some((node) => node.attributes.name === c.name),
    },
    'GET /registry/stream': { exempt: 'WebSocket: its events follow the same rule, tested in stream.test.ts' },
  };

  /** Registers a connection as `bearer`, shared with `team` when given. */
  const register = (bearer: string, extra: Record<string, unknown> = {}) => {
    const name = uniqueName('tenancy');
    const capability = uniqueName('cap');
    return request(h.url)
      .post('/connections')
      .set('Authorization', bearer)
      .send({
        name,
        protocol: 'http',
        endpoint: { url: server.url },
        capabilities: [capability],
        healthCheck: { enabled: false, interval: 60, timeout: 10_000 },
        ...extra,
      })
      .then((res) => ({ res, name, capability }));
  };
  /** The owner, acting as an editor of the table's team so that they may share with it. */
  const ownerInTeam = () => h.issuer.bearer(PERMISSIONS, { sub: callers.owner.sub, teams: [{ id: callers.team, role: 'editor' }] });

  beforeAll(async () => {
    h = await startHarness();
    server = await startHttpMcpServer(TOOL, gate);
    cms = await new FakeCms({ apiKeys: [API_KEY] }).start();
    callers = tenancyCallers(h.issuer, { permissions: PERMISSIONS, admin: 'mcp:admin' });
    table = {
      baseUrl: h.url,
      callers,
      create: async ({ owner, team }) => {
        const { res, name, capability } = await register(ownerInTeam(), { team });
        expect(res.status).toBe(201);
        expect(res.body).toMatchObject({ owner: owner.sub, team });
        return { id: res.body.id as string, name, capability };
      },
    };
  });
  afterAll(async () => {
    gate.release();
    await h.db.connection.deleteMany({ where: { owner: { in: [callers.owner.sub, callers.editor.sub, callers.viewer.sub, callers.stranger.sub] } } });
    await Promise.all([h.stop(), server.close(), cms.stop()]);
  });

  it('classifies every route the registry serves', async () => {
    expect(await unclassifiedRoutes(h.url, routes)).toEqual([]);
    expect(await unservedRoutes(h.url, routes)).toEqual([]);
  });

  it.each(Object.entries(routes))('%s', async (route, rule) => {
    expect(await tenancyViolations(table, route, rule)).toEqual([]);
  });

  it('answers a connection the caller may not read exactly as a missing one', async () => {
    const shared = await table.create(callers);
    const missing = randomUUID();
    const hidden = await request(h.url).get(`/connections/${shared.id}`).set('Authorization', callers.stranger.auth);
    const absent = await request(h.url).get(`/connections/${missing}`).set('Authorization', callers.stranger.auth);
    expect(hidden.status).toBe(404);
    expect({ ...hidden.body, requestId: undefined }).toEqual(
      JSON.parse(JSON.stringify({ ...absent.body, requestId: undefined }).replaceAll(missing, shared.id)) as unknown,
    );
  });

  it('checks in a batch only what the caller may change: a team viewer is refused, an editor checks', async () => {
    const shared = await table.create(callers);
    const batch = (auth: string) =>
      request(h.url)
        .post('/connections/health-check/batch')
        .set('Authorization', auth)
        .send({ connectionIds: [shared.id] })
        .expect(200);
    const byViewer = await batch(callers.viewer.auth);
    expect(byViewer.body.results).toEqual([{ connectionId: shared.id, status: 'error', responseTime: 0, error: expect.stringMatching(/only its owner/) }]);
    expect(byViewer.body.summary).toEqual({ total: 1, healthy: 0, unhealthy: 1 });
    expect((await h.db.connection.findUniqueOrThrow({ where: { id: shared.id } })).checksPerformed).toBe(0);
    const byStranger = await batch(callers.stranger.auth);
    expect(byStranger.body.results).toEqual([{ connectionId: shared.id, status: 'error', responseTime: 0, error: 'no such connection' }]);
    const byEditor = await batch(callers.editor.auth);
    expect(byEditor.body.results).toEqual([{ connectionId: shared.id, status: 'healthy', responseTime: expect.any(Number) }]);
  });

  it('lets an import replace a connection only for its owner, a team editor or an admin', async () => {
    const shared = await table.create(callers);
    const replace = (auth: string) =>
      request(h.url)
        .post('/registry/import')
        .set('Authorization', auth)
        .send({
          onConflict: 'replace',
          connections: [{ name: shared.name, type: 'server', protocol: 'http', endpoint: { url: server.url }, capabilities: [shared.capability, 'more'] }],
        });
    for (const role of ['viewer', 'stranger'] as const) {
      const refused = await replace(callers[role].auth);
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatchObject({ type: 'authorization_error', code: 'insufficient_permissions' });
      // The refusal names the connection the caller named, never its id.
      expect(JSON.stringify(refused.body)).not.toContain(shared.id);
    }
    for (const role of ['editor', 'owner', 'admin'] as const) {
      const done = await replace(callers[role].auth);
      expect(done.status).toBe(200);
      expect(done.body.updated).toEqual([{ id: shared.id, name: shared.name }]);
    }
    // Replacing keeps the owner and the team.
    expect(await h.db.connection.findUniqueOrThrow({ where: { id: shared.id } })).toMatchObject({ owner: callers.owner.sub, team: callers.team });
  });

  it('shares a new connection only with a team the caller edits', async () => {
    const viewerOnly = h.issuer.bearer(PERMISSIONS, { teams: [{ id: callers.team, role: 'viewer' }] });
    const asViewer = await register(viewerOnly, { team: callers.team });
    expect(asViewer.res.status).toBe(403);
    expect(asViewer.res.body.error).toMatchObject({ type: 'authorization_error', details: { reason: 'not_team_editor', team: callers.team } });
    const asStranger = await register(callers.stranger.auth, { team: callers.team });
    expect(asStranger.res.status).toBe(403);
    expect(await h.db.connection.count({ where: { name: { in: [asViewer.name, asStranger.name] } } })).toBe(0);

    const asAdmin = await register(callers.admin.auth, { team: callers.team });
    expect(asAdmin.res.status).toBe(201);
    expect(asAdmin.res.body).toMatchObject({ owner: callers.admin.sub, team: callers.team });
    const detail = await request(h.url).get(`/connections/${asAdmin.res.body.id}`).set('Authorization', callers.viewer.auth).expect(200);
    expect(detail.body).toMatchObject({ owner: callers.admin.sub, team: callers.team });
    await h.db.connection.delete({ where: { id: asAdmin.res.body.id as string } });
  });
});
