import {
  tenancyCallers,
  tenancyViolations,
  testDatabaseUrl,
  uniqueName,
  unclassifiedRoutes,
  unservedRoutes,
  type TenancyCase,
  type TenancyTable,
} from '@platform/testing';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { startFakeWorkers } from './fake-workers';
import { manifest, startMaster, type Master } from './harness';

/** One of each of the owner's resources, shared with the table's team. */
interface Owned {
  agent: { id: string; namespace: string };
  workflow: { id: string };
  execution: { id: string };
  certification: string;
}

const API = '/api/v1';

/** Every route of the master's /openapi.json, as owner, team viewer, team editor, stranger and admin. */
describe('tenancy: every master route under the ownership rule', () => {
  let h: Master;
  let workers: Awaited<ReturnType<typeof startFakeWorkers>>;
  let db: Client;
  let table: TenancyTable<Owned>;
  const permissions = [
    'agents:read',
    'agents:write',
    'orchestration:read',
    'orchestration:write',
    'certification:read',
    'certification:write',
    'governance:read',
    'federation:read',
    'monitoring:read',
  ];
  const byId = (body: unknown, id: string) => (body as { items: Array<{ id: string }> }).items.some((item) => item.id === id);

  const routes: Record<string, TenancyCase<Owned>> = {
    'GET /agents': { access: 'list', request: (r) => ({ path: `${API}/agents?q=${r.agent.namespace}` }), lists: (body, r) => byId(body, r.agent.id) },
    'POST /agents': { exempt: 'declares an agent of the caller (sharing with a team is checked by ownerFor: ownership.test.ts)' },
    'GET /agents/{agentId}': { access: 'read', request: (r) => ({ path: `${API}/agents/${r.agent.id}` }) },
    'PUT /agents/{agentId}': { access: 'write', request: (r) => ({ path: `${API}/agents/${r.agent.id}`, body: manifest({ namespace: r.agent.namespace }) }) },
    'DELETE /agents/{agentId}': { access: 'write', request: (r) => ({ path: `${API}/agents/${r.agent.id}` }) },
    'GET /orchestration/workflows': {
      access: 'list',
      request: () => ({ path: `${API}/orchestration/workflows?limit=500` }),
      lists: (body, r) => byId(body, r.workflow.id),
    },
    'POST /orchestration/workflows': { exempt: "creates a workflow of the caller (its steps' agents must be readable: ownership.test.ts)" },
    'POST /orchestration/workflows/{workflowId}/execute': {
      access: 'write',
      request: (r) => ({ path: `${API}/orchestration/workflows/${r.workflow.id}/execute`, body: { inputs: {} } }),
    },
    'GET /orchestration/executions/{executionId}': { access: 'read', request: (r) => ({ path: `${API}/orchestration/executions/${r.execution.id}` }) },
    'POST /specification/validate': { exempt: 'validates the manifest in the body; touches no stored resource' },
    'GET /specification/taxonomies': { exempt: 'the platform taxonomies, the same for everyone' },
    'GET /specification/capabilities': { exempt: 'the platform capabilities, the same for everyone' },
    // The rule is checked before the registry is called; the registry is down here, so those let through get 503.
    'POST /certification/request': {
      access: 'write',
      request: (r) => ({ path: `${API}/certification/request`, body: { agentId: r.agent.id } }),
      allowed: [503],
    },
    'GET /certification/{certificationId}': { access: 'read', request: (r) => ({ path: `${API}/certification/${r.certification}` }) },
    'GET /governance/policies': { exempt: 'the policies in force, the same for everyone' },
    'GET /governance/compliance/{agentId}': { access: 'read', request: (r) => ({ path: `${API}/governance/compliance/${r.agent.id}` }) },
    'GET /federation/nodes': { exempt: "the platform's federation peers, an operator's (federation:read)" },
    'POST /federation/join': { exempt: 'joins a peer: federation:admin only' },
    'GET /monitoring/metrics': { exempt: 'platform-wide counts for operators (monitoring:read), no resource of a user' },
    'GET /monitoring/events': { exempt: "the platform's event log for operators (monitoring:read)" },
  };

  beforeAll(async () => {
    workers = await startFakeWorkers();
    h = await startMaster({ WORKERS_URL: workers.url });
    db = new Client({ connectionString: testDatabaseUrl });
    await db.connect();
    const callers = tenancyCallers(h.issuer, {
      permissions,
      admin: 'agents:admin',
      permissionsOf: { admin: [...permissions, 'agents:admin', 'orchestration:admin'] },
    });
    // The owner shares with the team, which takes an editor of it.
    const sharer = h.issuer.bearer(permissions, { sub: callers.owner.sub, teams: [{ id: callers.team, role: 'editor' }] });
    const call = async (method: string, path: string, body: unknown, expected: number) => {
      const response = await fetch(`${h.url}${API}${path}`, {
        method,
        headers: { authorization: sharer, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const answer = await response.json();
      if (response.status !== expected) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(answer)}`);
      return answer as { id: string; namespace: string };
    };
    table = {
      baseUrl: h.url,
      callers,
      create: async ({ owner, team }) => {
        const agent = await call('POST', `/agents?team=${team}`, manifest({ namespace: uniqueName('tenancy') }), 201);
        // The workflow runs another agent, so that deleting the first is not refused for a running execution.
        const step = await call('POST', `/agents?team=${team}`, manifest({ namespace: uniqueName('tenancy') }), 201);
        const workflow = await call('POST', '/orchestration/workflows', { name: uniqueName('tenancy'), steps: [{ id: 's', agentId: step.id }], team }, 201);
        const execution = await call('POST', `/orchestration/workflows/${workflow.id}/execute`, { inputs: {} }, 202);
        // A certification as the registry would have reported it, final so that reading it asks the registry nothing.
        const certification = randomUUID();
        await db.query(
          `INSERT INTO "master"."Certification" ("id", "agentId", "namespace", "name", "version", "status", "checks", "requestedBy", "owner", "team", "updatedAt", "completedAt")
           VALUES ($1, $2, $3, 'agent', '1.0.0', 'passed', '[]', $4, $4, $5, now(), now())`,
          [certification, agent.id, agent.namespace, owner.sub, team],
        );
        return { agent, workflow, execution, certification };
      },
    };
  });
  afterAll(async () => {
    await db?.end();
    await h?.stop();
    await workers?.stop();
  });

  it('classifies every route the master serves, and only those', async () => {
    const served = Object.fromEntries(Object.entries(routes).map(([route, rule]) => [route.replace(' /', ` ${API}/`), rule]));
    expect(await unclassifiedRoutes(h.url, served)).toEqual([]);
    expect(await unservedRoutes(h.url, served)).toEqual([]);
  });

  it.each(Object.entries(routes))('%s', async (route, rule) => {
    expect(await tenancyViolations(table, route.replace(' /', ` ${API}/`), rule)).toEqual([]);
  });
});
