import { eventually, TENANCY_ROLES, tenancyCallers, unclassifiedRoutes, unservedRoutes, type TenancyCallers, type TenancyCase } from '@platform/testing';
import request from 'supertest';
import { startHarness, type Harness } from './support/harness';

const PERMISSIONS = ['models:read', 'models:invoke'];
const CATALOGUE = 'the shared catalogue of models: every caller with the permission sees the same, nothing in it is a user’s';
const RUNS = "runs a model of the shared catalogue; the usage record the call leaves is the caller's own (GET /usage, below)";

/**
 * The platform's tenancy table over local-models (DESIGN.md, "Who owns what"). The models are a
 * catalogue shared by all callers; the only thing a user's calls leave here is their usage
 * records, which belong to the caller alone (no team) and `models:admin`.
 */
describe('tenancy: whose usage a caller reads', () => {
  let h: Harness;
  let callers: TenancyCallers;

  const routes: Record<string, TenancyCase<never>> = {
    'GET /api/tags': { exempt: CATALOGUE },
    'POST /api/show': { exempt: CATALOGUE },
    'GET /api/ps': { exempt: `${CATALOGUE} (the models in memory)` },
    'GET /api/version': { exempt: 'the Ollama API version followed' },
    'GET /tools': { exempt: `${CATALOGUE} (with prices)` },
    'POST /api/generate': { exempt: RUNS },
    'POST /api/chat': { exempt: RUNS },
    'POST /api/embed': { exempt: RUNS },
    'POST /invoke': { exempt: RUNS },
    'POST /v1/chat/completions': { exempt: RUNS },
    'POST /v1/completions': { exempt: RUNS },
    'POST /v1/embeddings': { exempt: RUNS },
    'GET /v1/models': { exempt: CATALOGUE },
    // The table's list expects a team to see what is shared with it; usage records are shared with
    // no one, so the five callers are tried below with that rule instead.
    'GET /usage': { exempt: "personal records, shared with no team: the caller's own and models:admin's only (tested below)" },
  };

  beforeAll(async () => {
    h = await startHarness();
    callers = tenancyCallers(h.issuer, { permissions: PERMISSIONS, admin: 'models:admin' });
  });
  afterAll(() => h.stop());

  it('classifies every route the service serves', async () => {
    expect(await unclassifiedRoutes(h.url, routes)).toEqual([]);
    expect(await unservedRoutes(h.url, routes)).toEqual([]);
  });

  it("shows the owner's usage records to the owner and models:admin only, not to their team or anyone else", async () => {
    const answer = await request(h.url)
      .post('/invoke')
      .set('Authorization', callers.owner.auth)
      .send({ tool: 'generate', input: { prompt: 'mine', model: 'llama3.2' } })
      .expect(200);
    const requestId = answer.headers['x-request-id'] as string;
    expect(requestId).toEqual(expect.any(String));
    const owned = (body: { items: Array<{ subject: string; requestId: string | null }> }) =>
      body.items.some((item) => item.subject === callers.owner.sub && item.requestId === requestId);
    await eventually(async () => owned((await request(h.url).get('/usage').set('Authorization', callers.owner.auth)).body), 20_000);

    const seen: Record<string, boolean> = {};
    for (const role of TENANCY_ROLES) {
      const list = await request(h.url).get('/usage?limit=500').set('Authorization', callers[role].auth);
      expect([role, list.status]).toEqual([role, 200]);
      const filtered = await request(h.url).get(`/usage?subject=${callers.owner.sub}`).set('Authorization', callers[role].auth);
      // Asking for another's records is refused outright; the owner and an admin get them.
      expect([role, filtered.status]).toEqual([role, role === 'owner' || role === 'admin' ? 200 : 403]);
      seen[role] = owned(list.body) || (filtered.status === 200 && owned(filtered.body));
      // Totals are sums over what the caller may read: nobody else's calls leak through them either.
      if (role !== 'admin' && role !== 'owner') expect([role, list.body.total, list.body.totals.calls]).toEqual([role, 0, 0]);
    }
    expect(seen).toEqual({ owner: true, viewer: false, editor: false, stranger: false, admin: true });
  });
});
