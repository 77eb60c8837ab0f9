import {
  tenancyCallers,
  tenancyViolations,
  TestIssuer,
  unclassifiedRoutes,
  unservedRoutes,
  uniqueName,
  type TenancyCase,
  type TenancyTable,
} from '@platform/testing';
import type { Db } from '../src/database';
import { engineOf, startWorkers, testQueue, type Service } from './harness';

/** A definition name and a run of it, owned by the table's owner and shared with its team. */
interface Resource {
  name: string;
  runId: string;
  taskId: string;
}

const ROUTE_PERMISSIONS = ['workflows:read', 'workflows:write', 'workflows:admin', 'workers:read'];
// Never called: no worker runs in the api role, and the step is claimed by hand.
const STEPS = [{ id: 'only', type: 'http', url: 'http://127.0.0.1:9/never' }];
const has = (body: unknown, runId: string) => (body as { items: Array<{ workflow_id: string }> }).items.some((item) => item.workflow_id === runId);

/** Every route of the service's OpenAPI document, as owner, team viewer, team editor, stranger and admin. */
describe('tenancy', () => {
  let issuer: TestIssuer;
  let svc: Service;
  let table: TenancyTable<Resource>;
  let closeEngine: () => Promise<void>;

  const routes: Record<string, TenancyCase<Resource>> = {
    'POST /api/v1/workflows': { access: 'write', request: (r) => ({ path: '/api/v1/workflows', body: { name: r.name, steps: STEPS } }), allowed: [202] },
    'GET /api/v1/workflows/versions': {
      access: 'list',
      request: (r) => ({ path: `/api/v1/workflows/versions?name=${r.name}` }),
      lists: (body, r) => (body as { items: Array<{ name: string }> }).items.some((item) => item.name === r.name),
    },
    'POST /api/v1/workflows/reload': { exempt: "operator (workflows:admin): registers the files of WORKERS_DEFINITIONS_DIR, new names as the caller's" },
    'POST /api/v1/workflows/{workflow_id}/pin': { access: 'write', request: (r) => ({ path: `/api/v1/workflows/${r.name}/pin?version=1` }) },
    'GET /api/v1/workflows/running': {
      access: 'list',
      request: () => ({ path: '/api/v1/workflows/running?limit=500' }),
      lists: (body, r) => has(body, r.runId),
    },
    'GET /api/v1/workflows/orphaned': {
      access: 'list',
      request: () => ({ path: '/api/v1/workflows/orphaned?limit=500' }),
      lists: (body, r) => has(body, r.runId),
    },
    'POST /api/v1/workflows/recover-orphaned': {
      exempt: 'acts on every run the caller may change, none named: ownership.test.ts shows that a stranger and a viewer recover nothing of the owner',
    },
    'POST /api/v1/workflows/{workflow_id}/retry': { access: 'write', request: (r) => ({ path: `/api/v1/workflows/${r.runId}/retry` }), allowed: [202, 409] },
    'POST /api/v1/workflows/{workflow_id}/cancel': { access: 'write', request: (r) => ({ path: `/api/v1/workflows/${r.runId}/cancel` }), allowed: [200, 409] },
    'GET /api/v1/workflows/{workflow_id}/dag': { access: 'read', request: (r) => ({ path: `/api/v1/workflows/${r.runId}/dag` }) },
    'GET /api/v1/workflows/{workflow_id}/trace': { access: 'read', request: (r) => ({ path: `/api/v1/workflows/${r.runId}/trace` }) },
    'GET /api/v1/workers': { exempt: "the deployment's worker processes: nobody's resource" },
    'GET /api/v1/workers/dead': { exempt: "the deployment's worker processes: nobody's resource" },
    'GET /api/v1/tasks/stats': { exempt: 'counts and timings per step type over the deployment: no run or step is named' },
    'GET /api/v1/tasks/slow': {
      access: 'list',
      request: (r) => ({ path: `/api/v1/tasks/slow?threshold=0&workflow_id=${r.runId}` }),
      lists: (body, r) => has(body, r.runId),
    },
    'POST /api/v1/tasks/{task_id}/retry': { access: 'write', request: (r) => ({ path: `/api/v1/tasks/${r.taskId}/retry` }), allowed: [202, 409] },
    'PATCH /api/v1/task-types/{type}': { exempt: 'operator setting (workers:admin) of the deployment' },
    'POST /api/v1/pause': { exempt: 'operator switch (workers:admin) of the deployment' },
    'POST /api/v1/resume': { exempt: 'operator switch (workers:admin) of the deployment' },
  };

  beforeAll(async () => {
    issuer = await new TestIssuer().start();
    // The API alone, on a queue of its own: nothing runs the steps, so each run stays as made here.
    svc = await startWorkers(issuer, { SERVICE_ROLE: 'api', WORKERS_QUEUE: `${testQueue}-tenancy` });
    const { engine, close } = engineOf(svc);
    closeEngine = close;
    const db = svc.infra.db as Db;
    const callers = tenancyCallers(issuer, { permissions: ROUTE_PERMISSIONS, admin: 'workers:admin' });
    table = {
      baseUrl: svc.url,
      callers,
      create: async ({ owner, team }) => {
        const name = uniqueName('tenancy');
        // The owner is no editor of the team in the table: share as the owner would with that role.
        const response = await fetch(`${svc.url}/api/v1/workflows`, {
          method: 'POST',
          headers: {
            authorization: issuer.bearer(ROUTE_PERMISSIONS, { sub: owner.sub, teams: [{ id: team, role: 'editor' }] }),
            'content-type': 'application/json',
          },
          body: JSON.stringify({ name, team, steps: STEPS }),
        });
        const run = (await response.json()) as { workflow_id: string; owner: string; team: string };
        expect([response.status, run.owner, run.team]).toEqual([202, owner.sub, team]);
        const step = await db.step.findFirstOrThrow({ where: { runId: run.workflow_id } });
        // A worker took the step and died at once: the run is running, its step orphaned and slow.
        await engine.claim(step.id, 1, 'tenancy-dead-worker', 1, 60_000);
        await new Promise((resolve) => setTimeout(resolve, 5));
        return { name, runId: run.workflow_id, taskId: step.id };
      },
    };
  });
  afterAll(async () => {
    await closeEngine?.();
    await svc?.stop();
    await issuer?.stop();
  });

  it('classifies every route of the OpenAPI document', async () => {
    expect(await unclassifiedRoutes(svc.url, routes)).toEqual([]);
    expect(await unservedRoutes(svc.url, routes)).toEqual([]);
  });

  it.each(Object.entries(routes))(
    '%s',
    async (route, rule) => {
      expect(await tenancyViolations(table, route, rule)).toEqual([]);
    },
    60_000,
  );
});
