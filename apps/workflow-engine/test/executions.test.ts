import request from 'supertest';
import { backoffDelay } from '../src/executions/execution-state';
import { finished, startEngine, type Engine } from './harness';

let engine: Engine;
beforeAll(async () => {
  engine = await startEngine(12, { WORKFLOW_ENGINE_SYNC_TIMEOUT_MS: '10000' });
});
afterAll(() => engine.stop());

const node = (id: string, type: string, data: Record<string, unknown> = {}, retry?: Record<string, unknown>) => ({
  id,
  type,
  position: { x: 0, y: 0 },
  data,
  ...(retry && { retry }),
});

describe('execution', () => {
  it('runs a diamond: both branches from one source, templates resolved, joined downstream', async () => {
    const wf = await engine.createWorkflow({
      nodes: [
        node('start', 'LLMNode', { prompt: 'topic', model: 'tiny' }),
        node('left', 'LLMNode', { prompt: 'left of {{start.completion}}', model: 'tiny' }),
        node('right', 'Condition', { condition: '$contains(text, "topic")', input: { text: '{{start.completion}}' } }),
        node('join', 'Merge', { inputs: { l: '{{left.completion}}', r: '{{right.result}}', tokens: '{{start.tokens}}' } }),
      ],
      edges: [
        { source: 'start', target: 'left' },
        { source: 'start', target: 'right' },
        { source: 'left', target: 'join' },
        { source: 'right', target: 'join' },
      ],
    });
    const accepted = await engine.execute(wf.id, { options: { async: true } });
    expect(accepted.status).toBe(202);
    expect(accepted.body).toMatchObject({
      workflowId: wf.id,
      status: 'running',
      monitorUrl: expect.stringMatching(new RegExp(`^ws://.+/api/v1/executions/${accepted.body.executionId}/stream$`)),
    });
    expect(typeof accepted.body.estimatedDuration).toBe('number');
    const done = await finished(engine, accepted.body.executionId);
    expect(done.status).toBe('completed');
    expect(done.result.join).toEqual({ merged: { l: 'echo(left of echo(topic))', r: true, tokens: 6 } });
    expect(done.result.right).toEqual({ result: true, value: true });
    const start = done.nodes.find((n: { nodeId: string }) => n.nodeId === 'start');
    expect(start).toMatchObject({ status: 'completed', modelUsed: 'tiny', tokensUsed: 6, attempts: 1 });
    expect(done.nodes.map((n: { nodeId: string }) => n.nodeId)).toEqual(['start', 'left', 'right', 'join']);
    expect(typeof done.duration).toBe('number');
    expect(done.completedAt).not.toBeNull();
  });

  it('follows only the taken branch of a Condition and merges inputs given per node', async () => {
    const wf = await engine.createWorkflow({
      nodes: [
        node('check', 'Condition', { condition: 'score > 5', input: { score: 1 } }),
        node('yes', 'Merge', { inputs: ['yes'] }),
        node('no', 'Merge', { inputs: ['no'] }),
      ],
      edges: [
        { source: 'check', target: 'yes', sourceHandle: 'true' },
        { source: 'check', target: 'no', sourceHandle: 'false' },
      ],
    });
    const low = await finished(engine, (await engine.execute(wf.id)).body.executionId);
    expect(Object.keys(low.result).sort()).toEqual(['check', 'no']);
    expect(low.nodes.find((n: { nodeId: string }) => n.nodeId === 'yes').status).toBe('skipped');
    const high = await finished(engine, (await engine.execute(wf.id, { inputs: { check: { input: { score: 9 } } } })).body.executionId);
    expect(Object.keys(high.result).sort()).toEqual(['check', 'yes']);
  });

  it('waits for the result when async is false', async () => {
    const wf = await engine.createWorkflow({ nodes: [node('a', 'LLMNode', { prompt: 'sync' })] });
    const res = await engine.execute(wf.id, { options: { async: false } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'completed', result: { a: { completion: 'echo(sync)' } } });
  });

  it('retries a failing node with backoff, then succeeds', async () => {
    const wf = await engine.createWorkflow({
      nodes: [node('flaky', 'LLMNode', { prompt: 'FAIL_TWICE:k1' }, { enabled: true, maxAttempts: 3, backoff: 'exponential', initialDelay: 20 })],
    });
    const done = await finished(engine, (await engine.execute(wf.id)).body.executionId);
    expect(done.status).toBe('completed');
    expect(done.nodes[0]).toMatchObject({ status: 'completed', attempts: 3 });
    expect(engine.ollama.prompts().filter((p) => p === 'FAIL_TWICE:k1')).toHaveLength(3);
  });

  it('fails the execution with the error body once the attempts run out, and stops downstream nodes', async () => {
    const wf = await engine.createWorkflow({
      nodes: [
        node('broken', 'LLMNode', { prompt: 'FAIL_ALWAYS once' }, { enabled: true, maxAttempts: 3, backoff: 'exponential', initialDelay: 10 }),
        node('after', 'Merge', { inputs: ['{{broken.completion}}'] }),
      ],
      edges: [{ source: 'broken', target: 'after' }],
    });
    const done = await finished(engine, (await engine.execute(wf.id)).body.executionId);
    expect(done).toMatchObject({ status: 'failed', retryable: true, error: { nodeId: 'broken', attempt: 3, code: 'MODEL_ERROR', retryable: true } });
    expect(done.error.message).toContain('local-models');
    expect(done.nodes.find((n: { nodeId: string }) => n.nodeId === 'after').status).toBe('pending');
    expect(engine.ollama.prompts().filter((p) => p === 'FAIL_ALWAYS once')).toHaveLength(3);
  });

  it('reports MODEL_TIMEOUT for a model that does not answer in time', async () => {
    const wf = await engine.createWorkflow({ nodes: [node('slow', 'LLMNode', { prompt: 'HANG', timeoutMs: 200 })] });
    const done = await finished(engine, (await engine.execute(wf.id)).body.executionId);
    expect(done.error).toMatchObject({ nodeId: 'slow', attempt: 1, code: 'MODEL_TIMEOUT', retryable: true });
  });

  it('does not retry an error another attempt cannot fix', async () => {
    const wf = await engine.createWorkflow({
      nodes: [node('bad', 'Condition', { condition: '$$$ (', input: {} }, { enabled: true, maxAttempts: 5, initialDelay: 10 })],
    });
    const done = await finished(engine, (await engine.execute(wf.id)).body.executionId);
    expect(done).toMatchObject({ status: 'failed', retryable: false, error: { code: 'CONDITION_ERROR', attempt: 1 } });
  });

  it('fails a node whose resolved data breaks its schema with INVALID_INPUT naming the field', async () => {
    const wf = await engine.createWorkflow({
      nodes: [node('c', 'Condition', { condition: '"text"', input: {} }), node('s', 'VectorSearch', { query: '{{c.result}}', collection: 'c' })],
      edges: [{ source: 'c', target: 's' }],
    });
    const done = await finished(engine, (await engine.execute(wf.id)).body.executionId);
    expect(done.error).toMatchObject({ nodeId: 's', code: 'INVALID_INPUT', retryable: false });
    expect(done.error.message).toContain('query');
  });

  it('answers 404 for unknown workflows and executions, 400 for bad ids and inputs, 401/403 without rights', async () => {
    const wf = await engine.createWorkflow({ nodes: [node('a', 'Merge', { inputs: [] })] });
    expect((await engine.execute('00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await engine.execute('nope')).status).toBe(400);
    const badInputs = await engine.execute(wf.id, { inputs: { ghost: { x: 1 } } });
    expect(badInputs.status).toBe(400);
    expect(badInputs.body.error.details.issues[0].path).toBe('body.inputs.ghost');
    expect((await engine.execute(wf.id, { options: { callbacks: { onComplete: 'not a url' } } })).status).toBe(400);
    const missing = await request(engine.app).get('/api/v1/executions/00000000-0000-4000-8000-000000000000').set('Authorization', engine.auth());
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('not_found');
    expect((await request(engine.app).post(`/api/v1/workflows/${wf.id}/execute`).send({})).status).toBe(401);
    expect(
      (
        await request(engine.app)
          .post(`/api/v1/workflows/${wf.id}/execute`)
          .set('Authorization', engine.auth(['workflows:read']))
          .send({})
      ).status,
    ).toBe(403);
    expect(
      (
        await request(engine.app)
          .get('/api/v1/executions/00000000-0000-4000-8000-000000000000')
          .set('Authorization', engine.auth(['other:read']))
      ).status,
    ).toBe(403);
  });
});

describe('backoffDelay', () => {
  it('doubles from the initial delay with up to a quarter of jitter and no cap', () => {
    expect([1, 2, 3, 4].map((attempt) => backoffDelay(100, attempt, () => 0))).toEqual([100, 200, 400, 800]);
    expect(backoffDelay(100, 2, () => 0.999)).toBe(250);
    expect(backoffDelay(1000, 20, () => 0)).toBe(1000 * 2 ** 19);
  });
});
