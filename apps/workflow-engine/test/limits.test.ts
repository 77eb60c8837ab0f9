import { uniqueName } from '@platform/testing';
import request from 'supertest';
import { FakeServer, json } from './fakes';
import { finished, startEngine, type Engine } from './harness';

// An engine as production runs it: callbacks may not reach private or loopback addresses, and a
// collection holds few documents, so both limits can be reached.
let engine: Engine;
beforeAll(async () => {
  engine = await startEngine(7, { OUTBOUND_ALLOW_PRIVATE: 'false', WORKFLOW_ENGINE_VECTOR_MAX_DOCUMENTS: '3', WEBHOOK_MAX_ATTEMPTS: '1' });
});
afterAll(() => engine.stop());

const node = (id: string, type: string, data: Record<string, unknown> = {}) => ({ id, type, position: { x: 0, y: 0 }, data });

describe('the documented size limit of a vector collection', () => {
  it('refuses documents past WORKFLOW_ENGINE_VECTOR_MAX_DOCUMENTS, and still replaces stored ones', async () => {
    const collection = uniqueName('small');
    const put = (documents: unknown[]) =>
      request(engine.app).put(`/api/v1/collections/${collection}/documents`).set('Authorization', engine.auth()).send({ documents });
    const full = await put([
      { id: 'a', vector: [1, 0] },
      { id: 'b', vector: [0, 1] },
      { id: 'c', vector: [1, 1] },
    ]);
    expect(full.body).toMatchObject({ upserted: 3, total: 3 });
    const over = await put([{ id: 'd', vector: [1, 2] }]);
    expect(over.status).toBe(400);
    expect(over.body.error.message).toContain('WORKFLOW_ENGINE_VECTOR_MAX_DOCUMENTS');
    expect(over.body.error.details.issues).toEqual([expect.objectContaining({ path: 'body.documents', code: 'too_big' })]);
    const replaced = await put([{ id: 'a', vector: [2, 0] }]);
    expect(replaced.status).toBe(200);
    expect(replaced.body.total).toBe(3);
  });
});

describe('estimatedDuration', () => {
  it('starts from the components typical seconds and is then learnt from completed runs', async () => {
    const category = uniqueName('learnt');
    const created = await request(engine.app)
      .post('/api/v1/workflows')
      .set('Authorization', engine.auth())
      .send({ name: 'one model call', category, flow: { nodes: [node('gen', 'LLMNode', { prompt: 'hello' })] } });
    expect(created.status).toBe(201);
    const catalog = async () =>
      (await request(engine.app).get(`/api/v1/workflows/catalog?category=${category}`).set('Authorization', engine.auth())).body.workflows[0]
        .estimatedDuration as number;
    // An LLMNode is typically 5 s; the fake model answers in milliseconds.
    expect(await catalog()).toBe(5);
    const runs = [];
    for (let i = 0; i < 2; i++) {
      const done = await engine.execute(created.body.id, { options: { async: false } });
      expect(done.status).toBe(200);
      runs.push(done.body.duration as number);
    }
    const mean = (runs[0] + runs[1]) / 2;
    expect(await catalog()).toBe(Math.round(mean / 10) / 100);
  });
});

describe('callbacks through the outbound guard', () => {
  it('never posts a callback to a loopback address when private addresses are not allowed, and keeps it as a dead letter', async () => {
    const receiver = await new FakeServer((_req, _body, res) => json(res, 200, {})).start();
    try {
      const wf = await engine.createWorkflow({ nodes: [node('a', 'Merge', { inputs: [1] })] });
      const accepted = await engine.execute(wf.id, { options: { callbacks: { onComplete: `${receiver.url}/done` } } });
      expect(accepted.status).toBe(202);
      const { executionId } = accepted.body;
      let dead: { executionId?: string; failedReason: string } | undefined;
      for (let i = 0; i < 100 && !dead; i++) {
        const failed = await request(engine.app)
          .get('/api/v1/admin/queues/workflow-engine.webhooks/failed?limit=500')
          .set('Authorization', engine.auth(['workflows:admin']));
        const job = (failed.body.jobs as Array<{ data: { payload: { body: { executionId: string } } }; failedReason: string }> | undefined)?.find(
          (candidate) => candidate.data.payload.body.executionId === executionId,
        );
        if (job) dead = { executionId, failedReason: job.failedReason };
        else await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(dead).toBeDefined();
      expect(dead?.failedReason).toMatch(/private|loopback|not allowed|refused/i);
      expect(receiver.requests).toHaveLength(0);
    } finally {
      await receiver.stop();
    }
  });
});

describe('a sync execution past WORKFLOW_ENGINE_SYNC_TIMEOUT_MS', () => {
  let short: Engine;
  beforeAll(async () => {
    short = await startEngine(8, { WORKFLOW_ENGINE_SYNC_TIMEOUT_MS: '300' });
  });
  afterAll(() => short.stop());

  it('answers 202 as an async execution would, and the execution goes on to complete', async () => {
    const hold = uniqueName('sync').replace(/\W/g, '_');
    const workflow = await short.createWorkflow({ nodes: [node('gen', 'LLMNode', { prompt: `HOLD:${hold}` })] });
    const answer = await short.execute(workflow.id, { options: { async: false } });
    expect(answer.status).toBe(202);
    expect(answer.body).toMatchObject({ executionId: expect.any(String), monitorUrl: expect.stringContaining(answer.body.executionId) });
    expect((await short.execution(answer.body.executionId)).status).toMatch(/^(queued|running)$/);
    short.ollama.release(hold);
    expect(await finished(short, answer.body.executionId)).toMatchObject({ status: 'completed' });
  });
});
