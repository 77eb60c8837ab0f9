import {
  eventually,
  tenancyCallers,
  tenancyViolations,
  uniqueName,
  unclassifiedRoutes,
  unservedRoutes,
  type TenancyCallers,
  type TenancyCase,
  type TenancyTable,
} from '@platform/testing';
import * as grpc from '@grpc/grpc-js';
import request from 'supertest';
import { meshClient, startMesh, stopIssuer, testIssuer, type MeshClient, type MeshInstance } from './harness';

/** One agent of the owner, shared with the team, with a message waiting for it and a dead letter. */
interface Resource {
  agentId: string;
  capability: string;
  queuedId: string;
  deadId: string;
}

const API = '/api/v1';
const admin = { exempt: 'mesh:admin only: operations over the whole mesh' };

describe('who may reach an agent and its messages: every route × owner, team viewer, team editor, stranger, admin', () => {
  let mesh: MeshInstance;
  let callers: TenancyCallers;
  let table: TenancyTable<Resource>;
  let streaming: TenancyTable<Resource>;
  const namespace = uniqueName('tenancy');
  const created: string[] = [];
  const clients: MeshClient[] = [];
  const streams: Array<grpc.ClientReadableStream<unknown>> = [];

  beforeAll(async () => {
    mesh = await startMesh();
    callers = tenancyCallers(await testIssuer(), { permissions: ['mesh:read', 'mesh:write'], admin: 'mesh:admin' });
    const issuer = await testIssuer();
    const create = async (who: TenancyCallers): Promise<Resource> => {
      // The owner shares the agent with a team they edit (the table's owner is not in it otherwise).
      const owner = issuer.bearer(['mesh:read', 'mesh:write'], { sub: who.owner.sub, teams: [{ id: who.team, role: 'editor' }] });
      // Ids sort first, so an admin's page of every agent (GET /health/all) starts with them.
      const agentId = `00000-${uniqueName('agent')}`;
      const capability = uniqueName('cap');
      created.push(agentId);
      const registered = await request(mesh.app)
        .post(`${API}/agents`)
        .set('Authorization', owner)
        .send({ id: agentId, name: 'tenant', namespace, capabilities: [capability], team: who.team });
      expect([registered.status, registered.body.owner, registered.body.team]).toEqual([201, who.owner.sub, who.team]);
      const send = () =>
        request(mesh.app)
          .post(`${API}/messages`)
          .set('Authorization', who.owner.auth)
          .send({ to: agentId, payload: { secret: agentId } });
      const [queued, dead] = [await send(), await send()];
      expect([queued.status, dead.status]).toEqual([202, 202]);
      await mesh.infra.db.message.update({ where: { id: dead.body.id }, data: { state: 'dead', deadReason: 'test', attempts: 1 } });
      return { agentId, capability, queuedId: queued.body.id, deadId: dead.body.id };
    };
    table = { baseUrl: mesh.url, callers, create };
    // GET /grpc/connections lists streams: this resource's agent has one open, by its owner.
    streaming = {
      ...table,
      create: async (who) => {
        const resource = await create(who);
        const client = meshClient(mesh.grpcPort);
        clients.push(client);
        const md = new grpc.Metadata();
        md.set('authorization', who.owner.auth);
        const stream = client.Subscribe({ agent_id: resource.agentId }, md);
        stream.on('error', () => undefined);
        streams.push(stream);
        await eventually(async () =>
          (await request(mesh.app).get(`${API}/grpc/connections`).set('Authorization', callers.admin.auth)).body.streams.some(
            (s: { agent_id: string }) => s.agent_id === resource.agentId,
          ),
        );
        return resource;
      },
    };
  });
  afterAll(async () => {
    for (const stream of streams) stream.cancel();
    for (const client of clients) client.close();
    for (const id of created) await request(mesh.app).delete(`${API}/agents/${id}`).set('Authorization', callers.admin.auth);
    await mesh.stop();
    await stopIssuer();
  });

  const listsMessage = (key: 'queuedId' | 'deadId') => (body: unknown, r: Resource) =>
    (body as { messages: Array<{ id: string }> }).messages.some((m) => m.id === r[key]);

  const routes: Record<string, TenancyCase<Resource>> = {
    'GET /health': { exempt: 'public health' },
    'GET /api/v1/health': { exempt: 'public health' },
    'POST /api/v1/agents': {
      // The same id again re-registers the agent: a change of someone's agent.
      access: 'write',
      request: (r) => ({ path: `${API}/agents`, body: { id: r.agentId, name: 'taken over', namespace, endpoint: 'http://127.0.0.1:9/inbox' } }),
    },
    'GET /api/v1/agents': {
      access: 'list',
      request: () => ({ path: `${API}/agents?namespace=${namespace}&limit=500` }),
      lists: (body, r) => (body as { agents: Array<{ id: string }> }).agents.some((a) => a.id === r.agentId),
    },
    'GET /api/v1/agents/count': { access: 'list', request: () => ({ path: `${API}/agents/count` }), lists: (body) => (body as { total: number }).total > 0 },
    'POST /api/v1/agents/reregister': admin,
    'DELETE /api/v1/agents/{agent_id}': { access: 'write', request: (r) => ({ path: `${API}/agents/${r.agentId}` }) },
    'PUT /api/v1/agents/{agent_id}/health': { access: 'write', request: (r) => ({ path: `${API}/agents/${r.agentId}/health`, body: { status: 'critical' } }) },
    'GET /api/v1/agents/{agent_id}/health/history': { access: 'read', request: (r) => ({ path: `${API}/agents/${r.agentId}/health/history` }) },
    'GET /api/v1/health/all': {
      access: 'list',
      request: () => ({ path: `${API}/health/all?limit=500` }),
      lists: (body, r) => (body as { agents: Array<{ agent_id: string }> }).agents.some((a) => a.agent_id === r.agentId),
    },
    'POST /api/v1/health/reset': admin,
    'GET /api/v1/routing/table': {
      access: 'list',
      request: () => ({ path: `${API}/routing/table` }),
      lists: (body, r) =>
        ((body as { capabilities: Record<string, Array<{ agent_id: string }>> }).capabilities[r.capability] ?? []).some((e) => e.agent_id === r.agentId),
    },
    'POST /api/v1/routing/cache/clear': admin,
    'POST /api/v1/routing/rebuild': admin,
    'GET /api/v1/discovery/status': { exempt: "the mesh's summary: counts (of the caller's agents) and settings, no agent's data" },
    'POST /api/v1/messages': { exempt: 'sends a message of the caller; any mesh:write caller may message any agent (that is what the mesh is for)' },
    'GET /api/v1/messages': { access: 'list', request: (r) => ({ path: `${API}/messages?agent_id=${r.agentId}` }), lists: listsMessage('queuedId') },
    'GET /api/v1/messages/failed': {
      access: 'list',
      request: (r) => ({ path: `${API}/messages/failed?agent_id=${r.agentId}` }),
      lists: listsMessage('deadId'),
    },
    'GET /api/v1/messages/export': { exempt: "mesh:admin only: every sender's payloads" },
    'POST /api/v1/messages/dedupe': admin,
    'GET /api/v1/queues/stats': { exempt: 'counts of messages and jobs by state, no message or agent' },
    'GET /api/v1/queues/depth': {
      access: 'list',
      request: () => ({ path: `${API}/queues/depth` }),
      lists: (body, r) => (body as { agents: Array<{ agent_id: string }> }).agents.some((a) => a.agent_id === r.agentId),
    },
    'GET /api/v1/queues/dlq': { access: 'list', request: (r) => ({ path: `${API}/queues/dlq?agent_id=${r.agentId}` }), lists: listsMessage('deadId') },
    'POST /api/v1/queues/dlq/retry': admin,
    'DELETE /api/v1/queues/purge': admin,
    'GET /api/v1/config': { exempt: "the mesh's settings" },
    'PUT /api/v1/config': admin,
    'GET /api/v1/config/health-checks': { exempt: "the mesh's settings" },
    'PUT /api/v1/config/health-checks': admin,
    'GET /api/v1/cluster/status': { exempt: 'the cluster: nodes and leader' },
    'GET /api/v1/cluster/nodes': { exempt: 'the cluster: nodes and how many agents each runs' },
    'POST /api/v1/cluster/reconcile': admin,
    'POST /api/v1/cluster/leader/elect': admin,
    'POST /api/v1/cluster/resync': admin,
    'POST /api/v1/drain': admin,
    'GET /api/v1/connections/active': { exempt: "counts of this node's connections" },
    'GET /api/v1/grpc/connections': {
      access: 'list',
      request: () => ({ path: `${API}/grpc/connections` }),
      lists: (body, r) => (body as { streams: Array<{ agent_id: string }> }).streams.some((s) => s.agent_id === r.agentId),
    },
    'POST /api/v1/grpc/connections/reset': admin,
    'POST /api/v1/gc/run': admin,
  };

  it('classifies every route the mesh serves, and only those', async () => {
    expect(await unclassifiedRoutes(mesh.url, routes)).toEqual([]);
    expect(await unservedRoutes(mesh.url, routes)).toEqual([]);
  });

  it.each(Object.entries(routes))('%s', async (route, rule) => {
    const on = route === 'GET /api/v1/grpc/connections' ? streaming : table;
    expect(await tenancyViolations(on, route, rule)).toEqual([]);
  });
});
