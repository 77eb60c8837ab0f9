import {
  tenancyCallers,
  tenancyViolations,
  uniqueName,
  unclassifiedRoutes,
  unservedRoutes,
  type TenancyCallers,
  type TenancyCase,
  type TenancyTable,
} from '@platform/testing';
import { manifest, startRegistry, type Harness } from './fixtures';

/**
 * The platform's ownership rule over every HTTP route of the registry (DESIGN.md, "Who owns what"):
 * a namespace, owned by its first publisher and shared with a team, is tried as its owner, a viewer
 * and an editor of the team, a stranger and registry:admin. The catalogue stays public to
 * `registry:read`; publishing, changing, unpublishing and the analytics follow the rule.
 */
type Published = { namespace: string; name: string };

const agentPath = (agent: Published) => `/api/v1/agents/${agent.namespace}/${agent.name}`;
const CATALOGUE = 'the public catalogue: every registry:read caller reads every published agent';
const routes: Record<string, TenancyCase<Published>> = {
  'GET /api/v1/agents': { exempt: CATALOGUE },
  'POST /api/v1/agents': {
    access: 'write',
    request: (agent) => ({ path: '/api/v1/agents', body: manifest({ namespace: agent.namespace, name: agent.name, version: '2.0.0' }) }),
  },
  'GET /api/v1/agents/{namespace}/{name}': { exempt: CATALOGUE },
  'PUT /api/v1/agents/{namespace}/{name}': { access: 'write', request: (agent) => ({ path: agentPath(agent), body: { displayName: 'Changed' } }) },
  'DELETE /api/v1/agents/{namespace}/{name}': { access: 'write', request: (agent) => ({ path: agentPath(agent) }) },
  'GET /api/v1/agents/{namespace}/{name}/versions': { exempt: CATALOGUE },
  'POST /api/v1/agents/{namespace}/{name}/versions': {
    access: 'write',
    request: (agent) => ({ path: `${agentPath(agent)}/versions`, body: manifest({ name: agent.name, version: '2.0.0' }) }),
  },
  'GET /api/v1/agents/{namespace}/{name}/versions/{version}': { exempt: CATALOGUE },
  'DELETE /api/v1/agents/{namespace}/{name}/versions/{version}': { access: 'write', request: (agent) => ({ path: `${agentPath(agent)}/versions/1.0.0` }) },
  'GET /api/v1/agents/{namespace}/{name}/versions/{version}/manifest': { exempt: CATALOGUE },
  'GET /api/v1/search': { exempt: CATALOGUE },
  'GET /api/v1/certifications': { exempt: `${CATALOGUE}, and their certifications` },
  'POST /api/v1/certifications/{namespace}/{name}/request': {
    exempt: 'checks only public data of a published version and changes nothing its owner wrote: any registry:write caller may ask (README)',
  },
  'GET /api/v1/analytics/{namespace}/{name}': { access: 'read', request: (agent) => ({ path: `/api/v1/analytics/${agent.namespace}/${agent.name}` }) },
  'GET /api/v1/schemas/manifest/{file}': { exempt: 'public: the manifest JSON Schema' },
  'GET /api/v1/admin/queues': { exempt: 'registry:admin only: operators' },
  'GET /api/v1/admin/queues/{queue}/failed': { exempt: 'registry:admin only: operators' },
  'POST /api/v1/admin/queues/{queue}/failed/{jobId}/retry': { exempt: 'registry:admin only: operators' },
};

describe('tenancy: the ownership rule on every registry route', () => {
  let h: Harness;
  let table: TenancyTable<Published>;

  beforeAll(async () => {
    h = await startRegistry();
    const callers = tenancyCallers(h.issuer, { permissions: ['registry:read', 'registry:write'], admin: 'registry:admin' });
    table = {
      baseUrl: h.url,
      callers,
      create: async ({ owner, team }: TenancyCallers) => {
        const agent = { namespace: uniqueName('tenancy'), name: uniqueName('agent') };
        // The owner shares the new namespace with a team they edit (the table's owner is not in it otherwise).
        const auth = h.issuer.bearer(['registry:read', 'registry:write'], { sub: owner.sub, teams: [{ id: team, role: 'editor' }] });
        const published = await h.publish(auth, manifest({ ...agent, version: '1.0.0' }), `/api/v1/agents?team=${team}`);
        if (published.status !== 201 || published.body.agent.owner !== owner.sub || published.body.agent.team !== team)
          throw new Error(`publish: ${published.status} ${JSON.stringify(published.body)}`);
        return agent;
      },
    };
  });
  afterAll(() => h.stop());

  it('classifies every route the registry serves, and names none it does not', async () => {
    expect(await unclassifiedRoutes(h.url, routes)).toEqual([]);
    expect(await unservedRoutes(h.url, routes)).toEqual([]);
  });

  it.each(Object.entries(routes))('%s', async (route, rule) => {
    expect(await tenancyViolations(table, route, rule)).toEqual([]);
  });

  it('shares a new namespace only with a team the publisher edits, and keeps its team', async () => {
    const namespace = uniqueName('shared');
    const viewer = h.issuer.bearer(['registry:read', 'registry:write'], { sub: uniqueName('viewer'), teams: [{ id: 'blue', role: 'viewer' }] });
    const refused = await h.publish(viewer, manifest({ namespace, name: 'a', version: '1.0.0' }), '/api/v1/agents?team=blue');
    expect(refused.status).toBe(403);
    expect(refused.body.error.details).toMatchObject({ reason: 'not_team_editor', team: 'blue' });
    const editor = h.issuer.bearer(['registry:read', 'registry:write'], { sub: uniqueName('editor'), teams: [{ id: 'blue', role: 'editor' }] });
    const shared = await h.publish(editor, manifest({ namespace, name: 'a', version: '1.0.0' }), '/api/v1/agents?team=blue');
    expect(shared.status).toBe(201);
    expect(shared.body.agent.team).toBe('blue');
    const other = await h.publish(editor, manifest({ namespace, name: 'b', version: '1.0.0' }), '/api/v1/agents?team=red');
    expect(other.status).toBe(403);
    const red = h.issuer.bearer(['registry:read', 'registry:write'], {
      sub: uniqueName('editor'),
      teams: [
        { id: 'blue', role: 'editor' },
        { id: 'red', role: 'editor' },
      ],
    });
    const conflicting = await h.publish(red, manifest({ namespace, name: 'b', version: '1.0.0' }), '/api/v1/agents?team=red');
    expect(conflicting.status).toBe(409);
  });
});
