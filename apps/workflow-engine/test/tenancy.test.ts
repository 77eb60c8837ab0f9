import {
  tenancyCallers,
  tenancyViolations,
  testDatabaseUrl,
  unclassifiedRoutes,
  unservedRoutes,
  uniqueName,
  type TenancyCase,
  type TenancyTable,
} from '@platform/testing';
import { Client } from 'pg';
import WebSocket from 'ws';
import { startEngine, type Engine } from './harness';

// Who owns what (DESIGN.md): workflows, their executions and batches, and vector collections
// belong to who created them and their team; the probe of issue 27 reached all of them as bob.
let engine: Engine;
beforeAll(async () => {
  engine = await startEngine(5);
});
afterAll(() => engine.stop());

const api = (path: string) => `${engine.svc.url}/api/v1${path}`;
const node = (id: string, type: string, data: Record<string, unknown> = {}) => ({ id, type, position: { x: 0, y: 0 }, data });

async function call(method: string, path: string, auth: string, body?: unknown) {
  const response = await fetch(api(path), {
    method,
    headers: { authorization: auth, ...(body !== undefined && { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/** The status a WebSocket upgrade answers (101 when it opened). */
function upgrade(path: string, auth: string): Promise<number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${engine.svc.port}/api/v1${path}`, { headers: { authorization: auth } });
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.on('open', () => (ws.close(), resolve(101)));
    ws.on('error', () => undefined);
  });
}

const RW = ['workflows:read', 'workflows:write'];

describe('what the probe reached as bob', () => {
  const alice = () => engine.issuer.bearer(RW, { sub: 'alice-probe' });
  const bob = () => engine.issuer.bearer(RW, { sub: 'bob-probe' });
  const reader = () => engine.issuer.bearer(['workflows:read'], { sub: 'reader-probe' });
  let workflowId: string;
  let executionId: string;
  let collection: string;

  beforeAll(async () => {
    collection = uniqueName('alice-docs');
    expect((await call('PUT', `/collections/${collection}/documents`, alice(), { documents: [{ id: 'secret', text: 'hers', vector: [1, 0] }] })).status).toBe(
      200,
    );
    const created = await call('POST', '/workflows', alice(), {
      name: 'alice',
      category: 'testing',
      flow: { nodes: [node('search', 'VectorSearch', { query: [1, 0], collection, topK: 1 })] },
    });
    expect(created.body).toMatchObject({ owner: 'alice-probe', team: null });
    workflowId = created.body.id;
    executionId = (await call('POST', `/workflows/${workflowId}/execute`, alice(), { options: { async: false } })).body.executionId;
    const done = await call('GET', `/executions/${executionId}`, alice());
    expect(done.body).toMatchObject({ status: 'completed', owner: 'alice-probe', result: { search: { results: [{ id: 'secret' }] } } });
  });

  it('bob does not read her execution result: 404, as for one that does not exist', async () => {
    const read = await call('GET', `/executions/${executionId}`, bob());
    expect(read.status).toBe(404);
    expect(read.body.error.message).toBe(`No execution ${executionId}`);
    expect(JSON.stringify(read.body)).not.toContain('secret');
  });

  it('a read-only user outside her team does not read her execution', async () => {
    expect((await call('GET', `/executions/${executionId}`, reader())).status).toBe(404);
  });

  it('bob neither runs nor batches her workflow', async () => {
    const run = await call('POST', `/workflows/${workflowId}/execute`, bob(), {});
    expect(run.status).toBe(404);
    expect(run.body.error.message).toBe(`No workflow ${workflowId}`);
    expect((await call('POST', `/workflows/${workflowId}/batch`, bob(), { inputs: [{}] })).status).toBe(404);
    expect((await call('GET', '/workflows/catalog?limit=500', bob())).body.workflows.map((w: { id: string }) => w.id)).not.toContain(workflowId);
  });

  it('bob does not write into her document collection, nor search it from a workflow of his', async () => {
    const put = await call('PUT', `/collections/${collection}/documents`, bob(), { documents: [{ id: 'planted', text: 'his', vector: [1, 0] }] });
    expect(put.status).toBe(404);
    const his = await call('POST', '/workflows', bob(), {
      name: 'bob',
      category: 'testing',
      flow: { nodes: [node('search', 'VectorSearch', { query: [1, 0], collection, topK: 5 })] },
    });
    const run = await call('POST', `/workflows/${his.body.id}/execute`, bob(), { options: { async: false } });
    expect(run.body).toMatchObject({ status: 'failed', error: { code: 'NOT_FOUND', message: `No vector collection ${collection}` } });
    // Her own run still finds only her document.
    const again = await call('POST', `/workflows/${workflowId}/execute`, alice(), { options: { async: false } });
    expect(again.body.result.search.results.map((r: { id: string }) => r.id)).toEqual(['secret']);
  });

  it('bob may not subscribe to her execution stream; she may', async () => {
    expect(await upgrade(`/executions/${executionId}/stream`, bob())).toBe(404);
    expect(await upgrade(`/executions/${executionId}/stream`, reader())).toBe(404);
    expect(await upgrade(`/executions/${executionId}/stream`, alice())).toBe(101);
  });
});

interface Owned {
  workflowId: string;
  executionId: string;
  batchId: string;
  collection: string;
}

describe('the tenancy table', () => {
  const admin = 'workflows:admin';
  let table: TenancyTable<Owned>;

  const routes: Record<string, TenancyCase<Owned>> = {
    'POST /api/v1/workflows': { exempt: "creates a workflow of the caller's" },
    'GET /api/v1/workflows/templates': { exempt: 'templates ship with the service: nobody owns them' },
    'GET /api/v1/workflows/catalog': {
      access: 'list',
      request: () => ({ path: '/api/v1/workflows/catalog?limit=500' }),
      lists: (body, owned) => (body as { workflows: Array<{ id: string }> }).workflows.some((w) => w.id === owned.workflowId),
    },
    'GET /api/v1/components': { exempt: 'the component library ships with the service: nobody owns it' },
    'GET /api/v1/workflows/{workflowId}': { access: 'read', request: (owned) => ({ path: `/api/v1/workflows/${owned.workflowId}` }) },
    'GET /api/v1/workflows/{workflowId}/executions': {
      access: 'read',
      request: (owned) => ({ path: `/api/v1/workflows/${owned.workflowId}/executions` }),
    },
    'POST /api/v1/workflows/{workflowId}/execute': {
      access: 'write',
      request: (owned) => ({ path: `/api/v1/workflows/${owned.workflowId}/execute`, body: {} }),
    },
    'POST /api/v1/workflows/{workflowId}/batch': {
      access: 'write',
      request: (owned) => ({ path: `/api/v1/workflows/${owned.workflowId}/batch`, body: { inputs: [{}] } }),
    },
    'GET /api/v1/executions/{executionId}': { access: 'read', request: (owned) => ({ path: `/api/v1/executions/${owned.executionId}` }) },
    'GET /api/v1/batches/{batchId}': { access: 'read', request: (owned) => ({ path: `/api/v1/batches/${owned.batchId}` }) },
    'PUT /api/v1/collections/{collection}/documents': {
      access: 'write',
      request: (owned) => ({ path: `/api/v1/collections/${owned.collection}/documents`, body: { documents: [{ id: 'more', vector: [0, 1] }] } }),
    },
    'GET /api/v1/executions/{executionId}/stream': { exempt: 'a WebSocket upgrade: the stream test below tries every caller' },
    'GET /api/v1/batches/{batchId}/stream': { exempt: 'a WebSocket upgrade: the stream test below tries every caller' },
    'GET /api/v1/admin/queues': { exempt: 'workflows:admin only: the queues of every owner' },
    'GET /api/v1/admin/queues/{queue}/failed': { exempt: 'workflows:admin only: the queues of every owner' },
    'POST /api/v1/admin/queues/{queue}/failed/{jobId}/retry': { exempt: 'workflows:admin only: the queues of every owner' },
  };

  beforeAll(async () => {
    const callers = tenancyCallers(engine.issuer, { permissions: RW, admin });
    // The owner shares with the team as an editor of it (the table's owner is no member).
    const sharer = engine.issuer.bearer(RW, { sub: callers.owner.sub, teams: [{ id: callers.team, role: 'editor' }] });
    table = {
      baseUrl: engine.svc.url,
      callers,
      create: async ({ team }) => {
        const workflow = await call('POST', '/workflows', sharer, {
          name: 'shared',
          category: 'testing',
          team,
          flow: { nodes: [node('a', 'Merge', { inputs: [1] })] },
        });
        expect(workflow.body).toMatchObject({ owner: callers.owner.sub, team });
        const executionId = (await call('POST', `/workflows/${workflow.body.id}/execute`, sharer, {})).body.executionId as string;
        const batchId = (await call('POST', `/workflows/${workflow.body.id}/batch`, sharer, { inputs: [{}] })).body.batchId as string;
        const collection = uniqueName('shared-docs');
        const put = await call('PUT', `/collections/${collection}/documents`, sharer, { team, documents: [{ id: 'one', vector: [1, 0] }] });
        expect(put.body).toMatchObject({ owner: callers.owner.sub, team });
        return { workflowId: workflow.body.id, executionId, batchId, collection };
      },
    };
  });

  it('classifies every route of /openapi.json, and names only served ones', async () => {
    expect(await unclassifiedRoutes(engine.svc.url, routes)).toEqual([]);
    expect(await unservedRoutes(engine.svc.url, routes)).toEqual([]);
  });

  it.each(Object.keys(routes).map((route) => [route]))('%s', async (route) => {
    expect(await tenancyViolations(table, route, routes[route])).toEqual([]);
  });

  it('lets owner, team and admin follow the execution and batch streams; a stranger is told they do not exist', async () => {
    const owned = await table.create(table.callers);
    const expected = { owner: 101, viewer: 101, editor: 101, admin: 101, stranger: 404 };
    for (const path of [`/executions/${owned.executionId}/stream`, `/batches/${owned.batchId}/stream`]) {
      const seen = Object.fromEntries(
        await Promise.all(Object.keys(expected).map(async (role) => [role, await upgrade(path, table.callers[role as keyof typeof expected].auth)])),
      );
      expect([path, seen]).toEqual([path, expected]);
    }
  });

  it('shares a new resource only with a team the caller edits', async () => {
    const { viewer, team } = table.callers;
    const asViewer = await call('POST', '/workflows', viewer.auth, {
      name: 'x',
      category: 'testing',
      team,
      flow: { nodes: [node('a', 'Merge', { inputs: [1] })] },
    });
    expect(asViewer.status).toBe(403);
    const put = await call('PUT', `/collections/${uniqueName('c')}/documents`, viewer.auth, { team, documents: [{ id: 'one', vector: [1] }] });
    expect(put.status).toBe(403);
  });
});

describe('rows stored before owners were recorded', () => {
  it('are reached only with workflows:admin', async () => {
    const created = await engine.createWorkflow({ nodes: [node('a', 'Merge', { inputs: [1] })] });
    const db = new Client({ connectionString: testDatabaseUrl });
    await db.connect();
    try {
      await db.query(`UPDATE "workflow-engine"."Workflow" SET owner = NULL WHERE id = $1`, [created.id]);
    } finally {
      await db.end();
    }
    expect((await call('POST', `/workflows/${created.id}/execute`, engine.auth(), {})).status).toBe(404);
    const listed = async (auth: string) =>
      (await call('GET', '/workflows/catalog?limit=500', auth)).body.workflows.some((w: { id: string }) => w.id === created.id);
    expect(await listed(engine.auth())).toBe(false);
    expect(await listed(engine.auth([...RW, 'workflows:admin']))).toBe(true);
    const run = await call('POST', `/workflows/${created.id}/execute`, engine.auth([...RW, 'workflows:admin']), { options: { async: false } });
    expect(run.status).toBe(200);
  });
});
