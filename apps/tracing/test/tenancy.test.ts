import { tenancyCallers, tenancyViolations, testDatabaseUrl, unclassifiedRoutes, unservedRoutes, type TenancyCase, type TenancyTable } from '@platform/testing';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { startTracing, uniqueName, type Harness } from './harness';

/** One of each of the owner's resources, shared with the table's team. */
interface Owned {
  dataset: string;
  evaluation: string;
  /** An evaluation with an example left to score (no job queued for it), for `/evaluations/active`. */
  active: string;
  projection: string;
}

const TELEMETRY = "the platform's spans and traces are telemetry, not a user's resource: traces:read / traces:write";
const ADMIN_ONLY = 'traces:admin only: retention and the span buffer of the whole service';

/** Every route of the tracing service's /openapi.json, as owner, team viewer, team editor, stranger and admin. */
describe('tenancy: every tracing route under the ownership rule', () => {
  let h: Harness;
  let db: Client;
  let table: TenancyTable<Owned>;
  const active: string[] = [];
  const listed = (key: string, id: (r: Owned) => string) => (body: unknown, r: Owned) =>
    ((body as Record<string, Array<{ id: string }>>)[key] ?? []).some((item) => item.id === id(r));

  const routes: Record<string, TenancyCase<Owned>> = {
    'POST /v1/traces': { exempt: TELEMETRY },
    'GET /api/traces/{trace_id}': { exempt: TELEMETRY },
    'DELETE /api/traces': { exempt: ADMIN_ONLY },
    'GET /api/projects/{project}/spans': { exempt: TELEMETRY },
    'GET /api/spans/count': { exempt: TELEMETRY },
    'GET /api/stats': { exempt: TELEMETRY },
    'GET /api/usage': { exempt: `model calls of the platform's spans: ${TELEMETRY}` },
    'GET /api/sessions': { exempt: `sessions of the platform's spans: ${TELEMETRY}` },
    'GET /api/sessions/{session_id}': { exempt: `sessions of the platform's spans: ${TELEMETRY}` },
    'GET /api/config': { exempt: ADMIN_ONLY },
    'PUT /api/config': { exempt: ADMIN_ONLY },
    'POST /api/gc': { exempt: ADMIN_ONLY },
    'POST /api/flush': { exempt: ADMIN_ONLY },
    'GET /api/embeddings/count': { exempt: `counts of span embeddings: ${TELEMETRY}` },
    'GET /api/embeddings/dimensions': { exempt: `sizes of span embeddings: ${TELEMETRY}` },
    'POST /api/embeddings/reproject': { exempt: "creates a projection of the caller's (ownership.test.ts)" },
    'GET /api/embeddings/projections/{projection_id}': { access: 'read', request: (r) => ({ path: `/api/embeddings/projections/${r.projection}` }) },
    'GET /api/datasets': { access: 'list', request: () => ({ path: '/api/datasets?limit=500' }), lists: listed('datasets', (r) => r.dataset) },
    'POST /api/datasets': { exempt: "creates a dataset of the caller's (sharing with a team: ownership.test.ts)" },
    'GET /api/datasets/{dataset_id}': { access: 'read', request: (r) => ({ path: `/api/datasets/${r.dataset}` }) },
    // Evaluating a dataset reads it: whoever may read it may evaluate it (the evaluation is theirs).
    'POST /api/evaluations': {
      access: 'read',
      request: (r) => ({ path: '/api/evaluations', body: { name: 'tenancy', dataset_id: r.dataset, metrics: ['exact_match'] } }),
    },
    'GET /api/evaluations': { access: 'list', request: () => ({ path: '/api/evaluations?limit=500' }), lists: listed('evaluations', (r) => r.evaluation) },
    'GET /api/evaluations/status': { exempt: 'queue-wide job counts for operators; no evaluation of anyone' },
    'GET /api/evaluations/active': { access: 'list', request: () => ({ path: '/api/evaluations/active' }), lists: listed('evaluations', (r) => r.active) },
    'POST /api/evaluations/pause': { exempt: `${ADMIN_ONLY} (the evaluation queue)` },
    'POST /api/evaluations/resume': { exempt: `${ADMIN_ONLY} (the evaluation queue)` },
    'GET /api/evaluations/{eval_id}/results': { access: 'read', request: (r) => ({ path: `/api/evaluations/${r.evaluation}/results` }) },
    'GET /api/evaluations/{eval_id}/errors': { access: 'read', request: (r) => ({ path: `/api/evaluations/${r.evaluation}/errors` }) },
    'POST /api/evaluations/{eval_id}/retry': { access: 'write', request: (r) => ({ path: `/api/evaluations/${r.evaluation}/retry` }) },
  };

  beforeAll(async () => {
    h = await startTracing();
    db = new Client({ connectionString: testDatabaseUrl });
    await db.connect();
    const callers = tenancyCallers(h.issuer, { permissions: ['traces:read', 'traces:write'], admin: 'traces:admin' });
    // The owner shares with the team, which takes an editor of it.
    const sharer = h.issuer.bearer(['traces:read', 'traces:write'], { sub: callers.owner.sub, teams: [{ id: callers.team, role: 'editor' }] });
    const call = async (path: string, body: object, expected: number) => {
      const response = await fetch(`${h.url}${path}`, {
        method: 'POST',
        headers: { authorization: sharer, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const answer = await response.json();
      if (response.status !== expected) throw new Error(`POST ${path}: ${response.status} ${JSON.stringify(answer)}`);
      return (answer as { id: string }).id;
    };
    table = {
      baseUrl: h.url,
      callers,
      create: async ({ owner, team }) => {
        const dataset = await call('/api/datasets', { name: uniqueName('tenancy'), data: [{ input: 'q', output: 'a', expected_output: 'a' }], team }, 201);
        const evaluation = await call('/api/evaluations', { name: 'tenancy', dataset_id: dataset, metrics: ['exact_match'], team }, 202);
        const projection = await call('/api/embeddings/reproject', { method: 'pca', project: uniqueName('tenancy'), team }, 202);
        // An evaluation that stays active: its one example is pending and no job will take it (removed after the test).
        const unfinished = randomUUID();
        active.push(unfinished);
        await db.query(
          `INSERT INTO "tracing"."evaluations" ("id", "name", "dataset_id", "metrics", "total", "owner", "team") VALUES ($1, 'tenancy-active', $2, '["exact_match"]', 1, $3, $4)`,
          [unfinished, dataset, owner.sub, team],
        );
        await db.query(`INSERT INTO "tracing"."evaluation_results" ("evaluation_id", "position") VALUES ($1, 0)`, [unfinished]);
        return { dataset, evaluation, active: unfinished, projection };
      },
    };
  });
  afterAll(async () => {
    await db?.query(`DELETE FROM "tracing"."evaluations" WHERE "id" = ANY($1::uuid[])`, [active]);
    await db?.end();
    await h?.stop();
  });

  it('classifies every route the service serves, and only those', async () => {
    expect(await unclassifiedRoutes(h.url, routes)).toEqual([]);
    expect(await unservedRoutes(h.url, routes)).toEqual([]);
  });

  it.each(Object.entries(routes))('%s', async (route, rule) => {
    expect(await tenancyViolations(table, route, rule)).toEqual([]);
  });
});
