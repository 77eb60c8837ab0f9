import request from 'supertest';
import WebSocket from 'ws';
import { verifyWebhook } from '../src/webhooks/signature';
import { FakeServer, json } from './fakes';
import { finished, startEngine, type Engine } from './harness';

let engine: Engine;
beforeAll(async () => {
  engine = await startEngine(13);
});
afterAll(() => engine.stop());

const node = (id: string, type: string, data: Record<string, unknown> = {}) => ({ id, type, position: { x: 0, y: 0 }, data });

/** Every message of a stream until the server closes it. */
function collect(path: string, token: string, viaQuery = false): Promise<Array<Record<string, unknown>>> {
  const url = `ws://127.0.0.1:${engine.svc.port}${path}${viaQuery ? `?access_token=${token}` : ''}`;
  const ws = new WebSocket(url, viaQuery ? {} : { headers: { Authorization: `Bearer ${token}` } });
  const messages: Array<Record<string, unknown>> = [];
  return new Promise((resolve, reject) => {
    ws.on('message', (data) => {
      if (process.env.DEBUG_WF) console.log(data.toString());
      messages.push(JSON.parse(data.toString()));
    });
    ws.on('close', () => resolve(messages));
    ws.on('error', reject);
  });
}

function refusal(path: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${engine.svc.port}${path}`, { headers });
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.on('open', () => (ws.close(), resolve(101)));
    ws.on('error', () => undefined);
  });
}

describe('execution stream', () => {
  it('gives a late subscriber the history first, then the live events, in order and once', async () => {
    const wf = await engine.createWorkflow({
      nodes: [
        node('first', 'LLMNode', { prompt: 'one' }),
        node('held', 'LLMNode', { prompt: 'HOLD:stream1 {{first.completion}}' }),
        node('last', 'Merge', { inputs: ['{{held.completion}}'] }),
      ],
      edges: [
        { source: 'first', target: 'held' },
        { source: 'held', target: 'last' },
      ],
    });
    const { executionId } = (await engine.execute(wf.id)).body;
    // Subscribe only once `first` has completed and `held` is running.
    for (;;) {
      const now = await engine.execution(executionId);
      if (now.nodes[1].status === 'running') break;
      if (process.env.DEBUG_WF) console.log(JSON.stringify(now.nodes));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const token = engine.token();
    const stream = collect(`/api/v1/executions/${executionId}/stream`, token, true);
    await new Promise((resolve) => setTimeout(resolve, 200));
    engine.ollama.release('stream1');
    const events = await stream;
    expect(events.map((e) => `${e.type}:${e.nodeId ?? ''}`)).toEqual([
      'node-started:first',
      'node-completed:first',
      'node-started:held',
      'node-completed:held',
      'node-started:last',
      'node-completed:last',
      'workflow-completed:',
    ]);
    expect(events[1]).toMatchObject({ executionId, output: { completion: 'echo(one)' }, duration: expect.any(Number), timestamp: expect.any(String) });
    expect(events[6]).toMatchObject({ executionId, result: { last: { merged: ['echo(HOLD:stream1 echo(one))'] } }, duration: expect.any(Number) });
  });

  it('replays a finished execution, failure included', async () => {
    const wf = await engine.createWorkflow({ nodes: [node('x', 'LLMNode', { prompt: 'FAIL_ALWAYS' })] });
    const { executionId } = (await engine.execute(wf.id)).body;
    await finished(engine, executionId);
    const events = await collect(`/api/v1/executions/${executionId}/stream`, engine.token());
    expect(events.map((e) => e.type)).toEqual(['node-started', 'node-failed', 'workflow-failed']);
    expect(events[2]).toMatchObject({ status: 'failed', error: { nodeId: 'x', code: 'MODEL_ERROR', attempt: 1 }, retryable: true });
  });

  it('refuses upgrades without a token, without the permission, and for unknown executions', async () => {
    const path = '/api/v1/executions/00000000-0000-4000-8000-000000000000/stream';
    expect(await refusal(path)).toBe(401);
    expect(await refusal(path, { Authorization: engine.auth(['other:read']) })).toBe(403);
    expect(await refusal(path, { Authorization: engine.auth(['workflows:read']) })).toBe(404);
    expect(await refusal('/api/v1/executions/not-a-uuid/stream', { Authorization: engine.auth(['workflows:read']) })).toBe(404);
  });
});

describe('signed callbacks', () => {
  it('posts onComplete and onError signed with the workflow secret, retrying a receiver that fails', async () => {
    let failFirst = true;
    const receiver = await new FakeServer((_req, _body, res) => {
      if (failFirst) {
        failFirst = false;
        return json(res, 500, {});
      }
      json(res, 204, {});
    }).start();
    const wf = await engine.createWorkflow({ nodes: [node('a', 'Merge', { inputs: ['done'] })] });
    await engine.execute(wf.id, { options: { callbacks: { onComplete: `${receiver.url}/complete` } } });
    const broken = await engine.createWorkflow({ nodes: [node('b', 'LLMNode', { prompt: 'FAIL_ALWAYS cb' })] });
    const failedRun = (await engine.execute(broken.id, { options: { callbacks: { onError: `${receiver.url}/error`, onComplete: `${receiver.url}/never` } } }))
      .body.executionId;
    for (let i = 0; i < 200 && receiver.requests.filter((r) => r.path !== '/never').length < 3; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    const complete = receiver.requests.filter((r) => r.path === '/complete');
    expect(complete).toHaveLength(2);
    expect(complete[0].headers['webhook-id']).toBe(complete[1].headers['webhook-id']);
    for (const delivery of complete) expect(verifyWebhook(wf.webhookSecret, delivery.headers, delivery.raw)).toBe(true);
    expect(verifyWebhook(broken.webhookSecret, complete[1].headers, complete[1].raw)).toBe(false);
    expect(complete[1].body).toMatchObject({ type: 'workflow.completed', data: { status: 'completed', result: { a: { merged: ['done'] } } } });
    const error = receiver.requests.find((r) => r.path === '/error');
    expect(error?.body).toMatchObject({
      type: 'workflow.failed',
      data: { executionId: failedRun, status: 'failed', error: { nodeId: 'b', code: 'MODEL_ERROR' }, retryable: true },
    });
    expect(verifyWebhook(broken.webhookSecret, error?.headers ?? {}, error?.raw ?? '')).toBe(true);
    expect(receiver.requests.some((r) => r.path === '/never')).toBe(false);
    await receiver.stop();
  });
});

describe('batches', () => {
  it('runs every item under continue, counts a failing one, streams progress and posts it signed', async () => {
    const receiver = await new FakeServer((_req, _body, res) => json(res, 200, {})).start();
    const wf = await engine.createWorkflow({ nodes: [node('gen', 'LLMNode', { prompt: 'default' })] });
    const res = await request(engine.app)
      .post(`/api/v1/workflows/${wf.id}/batch`)
      .set('Authorization', engine.auth())
      .send({
        inputs: [{ gen: { prompt: 'item one' } }, { gen: { prompt: 'FAIL_ALWAYS item' } }, { gen: { prompt: 'item three' } }, {}],
        options: { concurrency: 2, failureMode: 'continue', progressCallback: `${receiver.url}/progress` },
      });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ totalItems: 4, status: 'processing', progress: { completed: 0, failed: 0, pending: 4 } });
    expect(res.body.monitorUrl).toMatch(new RegExp(`/api/v1/batches/${res.body.batchId}/stream$`));
    const events = await collect(`/api/v1/batches/${res.body.batchId}/stream`, engine.token());
    const last = events[events.length - 1];
    expect(last).toMatchObject({ type: 'batch-completed', status: 'completed', progress: { completed: 3, failed: 1, pending: 0 } });
    const batch = await request(engine.app).get(`/api/v1/batches/${res.body.batchId}`).set('Authorization', engine.auth());
    expect(batch.body).toMatchObject({ status: 'completed', progress: { completed: 3, failed: 1, pending: 0 } });
    for (let i = 0; i < 100 && !receiver.requests.some((r) => (r.body as { type?: string }).type === 'batch-completed'); i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    const progress = receiver.requests.filter((r) => (r.body as { type?: string }).type === 'batch-progress');
    expect(progress.length).toBe(4);
    for (const delivery of receiver.requests) expect(verifyWebhook(wf.webhookSecret, delivery.headers, delivery.raw)).toBe(true);
    await receiver.stop();
  });

  it('starts no new item after a failure under stop', async () => {
    const wf = await engine.createWorkflow({ nodes: [node('gen', 'LLMNode', { prompt: 'x' })] });
    const res = await request(engine.app)
      .post(`/api/v1/workflows/${wf.id}/batch`)
      .set('Authorization', engine.auth())
      .send({ inputs: [{ gen: { prompt: 'FAIL_ALWAYS stop' } }, { gen: { prompt: 'never run' } }], options: { concurrency: 1, failureMode: 'stop' } });
    const events = await collect(`/api/v1/batches/${res.body.batchId}/stream`, engine.token());
    expect(events[events.length - 1]).toMatchObject({ type: 'batch-completed', status: 'failed', progress: { completed: 0, failed: 1, pending: 1 } });
    expect(engine.ollama.prompts()).not.toContain('never run');
  });

  it('refuses bad batches', async () => {
    const wf = await engine.createWorkflow({ nodes: [node('gen', 'LLMNode', { prompt: 'x' })] });
    const send = (body: object) => request(engine.app).post(`/api/v1/workflows/${wf.id}/batch`).set('Authorization', engine.auth()).send(body);
    expect((await send({ inputs: [] })).status).toBe(400);
    expect((await send({ inputs: [{}], options: { concurrency: 0 } })).status).toBe(400);
    expect((await send({ inputs: [{ ghost: {} }] })).body.error.details.issues[0].path).toBe('body.inputs.0.ghost');
    expect((await send({ inputs: [{}], options: { progressCallback: 'ftp://x' } })).status).toBe(400);
    expect(
      (
        await request(engine.app)
          .post(`/api/v1/workflows/${wf.id}/batch`)
          .send({ inputs: [{}] })
      ).status,
    ).toBe(401);
    expect((await request(engine.app).get('/api/v1/batches/00000000-0000-4000-8000-000000000000').set('Authorization', engine.auth())).status).toBe(404);
  });
});

describe('dead letters', () => {
  it('keeps callbacks that ran out of attempts for an operator to list', async () => {
    await engine.restart({ WEBHOOK_MAX_ATTEMPTS: '2', WEBHOOK_RETRY_DELAY_MS: '10' });
    const receiver = await new FakeServer((_req, _body, res) => json(res, 500, {})).start();
    const wf = await engine.createWorkflow({ nodes: [node('a', 'Merge', { inputs: [1] })] });
    const { executionId } = (await engine.execute(wf.id, { options: { callbacks: { onComplete: `${receiver.url}/down` } } })).body;
    for (let i = 0; i < 100 && receiver.requests.length < 2; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    let failed: { body: { jobs?: Array<{ data: { payload: { body: { executionId: string } } } }> } } = { body: {} };
    for (let i = 0; i < 50; i++) {
      failed = await request(engine.app)
        .get('/api/v1/admin/queues/workflow-engine.webhooks/failed?limit=500')
        .set('Authorization', engine.auth(['workflows:admin']));
      if (failed.body.jobs?.some((job) => job.data.payload.body.executionId === executionId)) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(failed.body.jobs?.some((job) => job.data.payload.body.executionId === executionId)).toBe(true);
    expect(receiver.requests).toHaveLength(2);
    expect((await request(engine.app).get('/api/v1/admin/queues').set('Authorization', engine.auth())).status).toBe(403);
    await receiver.stop();
  });
});
