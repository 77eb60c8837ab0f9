import { TestIssuer } from '@platform/testing';
import request from 'supertest';
import type { Db } from '../src/database';
import { auth, runEnds, startRun, startWorkers, Target, testQueue, traceOf, type Service } from './harness';

describe('running DAGs', () => {
  let issuer: TestIssuer;
  let svc: Service;
  let target: Target;
  beforeAll(async () => {
    issuer = await new TestIssuer().start();
    target = await new Target().start();
    svc = await startWorkers(issuer);
  });
  afterAll(async () => {
    await svc?.stop();
    await target?.stop();
    await issuer?.stop();
  });

  it('runs a diamond: the join starts only after both branches, with their outputs in its templates', async () => {
    const run = await startRun(
      svc,
      issuer,
      [
        { id: 'a', type: 'http', url: `${target.url}/echo/a`, method: 'POST', body: { n: '{{input.n}}' } },
        { id: 'b', type: 'http', url: `${target.url}/slow/150`, depends_on: ['a'] },
        { id: 'c', type: 'http', url: `${target.url}/echo/c`, depends_on: ['a'], method: 'POST', body: { from: '{{a.body.body.n}}' } },
        {
          id: 'd',
          type: 'http',
          url: `${target.url}/echo/d`,
          depends_on: ['b', 'c'],
          method: 'POST',
          body: { b: '{{b.body.slept}}', c: '{{c.body.body.from}}', s: 'status {{b.status}}' },
        },
      ],
      { input: { n: 7 } },
    );
    expect(run.state).toBe('pending');
    const dag = await runEnds(svc, issuer, run.workflow_id);
    expect(dag.state).toBe('completed');
    expect(dag.nodes.map((node) => [node.id, node.state])).toEqual([
      ['a', 'completed'],
      ['b', 'completed'],
      ['c', 'completed'],
      ['d', 'completed'],
    ]);
    expect(dag.edges).toEqual(
      expect.arrayContaining([
        { source: 'a', target: 'b' },
        { source: 'a', target: 'c' },
        { source: 'b', target: 'd' },
        { source: 'c', target: 'd' },
      ]),
    );
    const d = target.callsTo('/echo/d').at(-1)!;
    expect(JSON.parse(d.body)).toEqual({ b: 150, c: 7, s: 'status 200' });
    expect([d.idempotencyKey, d.attempt]).toEqual([`${run.workflow_id}:d`, '1']);
    const b = target.callsTo('/slow/150').at(-1)!;
    expect(d.at).toBeGreaterThanOrEqual(b.at + 150);
    const trace = await traceOf(svc, issuer, run.workflow_id);
    expect(trace.trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(trace.timeline.map((entry) => entry.step)).toEqual(['a', expect.any(String), expect.any(String), 'd']);
    expect(trace.timeline.every((entry) => entry.state === 'completed' && entry.worker.length > 0 && entry.finished_at)).toBe(true);
  });

  it('fails a step that times out, recording the timed-out attempt', async () => {
    const run = await startRun(svc, issuer, [{ id: 'slow', type: 'http', url: `${target.url}/slow/5000`, timeout: 1 }]);
    const dag = await runEnds(svc, issuer, run.workflow_id);
    expect(dag.state).toBe('failed');
    const trace = await traceOf(svc, issuer, run.workflow_id);
    expect(trace.timeline).toEqual([expect.objectContaining({ step: 'slow', state: 'timed_out', error: 'timed out after 1000 ms' })]);
  });

  it('retries with backoff until the attempts run out, then fails naming the blocked steps', async () => {
    const run = await startRun(svc, issuer, [
      { id: 'bad', type: 'http', url: `${target.url}/status/503`, retry: { maxAttempts: 3, initialDelay: 100 } },
      { id: 'next', type: 'http', url: `${target.url}/ok`, depends_on: ['bad'] },
      { id: 'last', type: 'http', url: `${target.url}/ok`, depends_on: ['next'] },
    ]);
    const dag = await runEnds(svc, issuer, run.workflow_id);
    expect(dag.state).toBe('failed');
    expect(dag.nodes.map((node) => [node.id, node.state])).toEqual([
      ['bad', 'failed'],
      ['last', 'blocked'],
      ['next', 'blocked'],
    ]);
    expect(dag.blocked_steps.sort()).toEqual(['last', 'next']);
    expect(dag.error).toMatch(/^bad failed \(HTTP 503 .*\); blocked steps: (next, last|last, next)$/);
    const body = (await request(svc.app).get('/api/v1/workflows/running').set('Authorization', auth(issuer))).body;
    expect(body.items.map((item: { workflow_id: string }) => item.workflow_id)).not.toContain(run.workflow_id);
    const trace = await traceOf(svc, issuer, run.workflow_id);
    expect(trace.timeline.map((entry) => [entry.attempt, entry.state])).toEqual([
      [1, 'failed'],
      [2, 'failed'],
      [3, 'failed'],
    ]);
    // Backoff: the gaps between attempts grow (100 ms, then 200 ms, each plus jitter).
    const starts = trace.timeline.map((entry) => Date.parse(entry.started_at));
    expect(starts[1]! - starts[0]!).toBeGreaterThanOrEqual(100);
    expect(starts[2]! - starts[1]!).toBeGreaterThanOrEqual(200);
    expect(
      target
        .callsTo('/status/503')
        .filter((call) => call.idempotencyKey?.startsWith(run.workflow_id))
        .map((call) => [call.idempotencyKey, call.attempt]),
    ).toEqual([
      // One key for the step, so that the receiver can tell a re-sent step from a new one; the attempt apart.
      [`${run.workflow_id}:bad`, '1'],
      [`${run.workflow_id}:bad`, '2'],
      [`${run.workflow_id}:bad`, '3'],
    ]);
    expect(new Set(trace.timeline.map((entry) => entry.idempotency_key))).toEqual(new Set([`${run.workflow_id}:bad`]));
    const runBody = await request(svc.app).post(`/api/v1/workflows/${run.workflow_id}/cancel`).set('Authorization', auth(issuer));
    expect(runBody.status).toBe(409);
  });

  it('calls user URLs through the guard: a loopback URL is refused unless allowed, an answer over the cap fails', async () => {
    const guarded = await startWorkers(issuer, { WORKERS_ALLOW_PRIVATE_URLS: 'false', WORKERS_QUEUE: `${testQueue}-guarded` });
    try {
      const run = await startRun(guarded, issuer, [{ id: 'inside', type: 'http', url: `${target.url}/ok`, retry: { maxAttempts: 3, initialDelay: 10 } }]);
      expect((await runEnds(guarded, issuer, run.workflow_id)).state).toBe('failed');
      // Not retried: the address does not change.
      expect((await traceOf(guarded, issuer, run.workflow_id)).timeline).toEqual([
        expect.objectContaining({ state: 'failed', error: expect.stringMatching(/^blocked_address: /) }),
      ]);
    } finally {
      await guarded.stop();
    }
    target.handlers.set('/big', (_req, res) => res.end('x'.repeat(300 * 1024)));
    const big = await startRun(svc, issuer, [{ id: 'big', type: 'http', url: `${target.url}/big` }]);
    expect((await runEnds(svc, issuer, big.workflow_id)).state).toBe('failed');
    expect((await traceOf(svc, issuer, big.workflow_id)).timeline[0]!.error).toMatch(/^too_large: /);
  });

  it('stores answers holding NUL characters or lone surrogates, in values or names (as U+FFFD), and refuses NULs in requests', async () => {
    target.handlers.set('/nul', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          text: 'a\u0000b',
          'key\u0000': 'in a name too',
          escaped: '\\u0000 is text',
          slash: '\\\u0000',
          lone: 'x\ud800',
          pair: '\ud83d\ude00',
        }),
      );
    });
    const run = await startRun(svc, issuer, [
      { id: 'nul', type: 'http', url: `${target.url}/nul` },
      { id: 'next', type: 'http', url: `${target.url}/echo/nul`, method: 'POST', body: { t: '{{nul.body.text}}' }, depends_on: ['nul'] },
    ]);
    expect((await runEnds(svc, issuer, run.workflow_id)).state).toBe('completed');
    expect(JSON.parse(target.callsTo('/echo/nul').at(-1)!.body)).toEqual({ t: 'a\ufffdb' });
    const stored = await (svc.infra.db as Db).step.findFirstOrThrow({ where: { runId: run.workflow_id, stepId: 'nul' } });
    expect((stored.output as { body: unknown }).body).toEqual({
      text: 'a\ufffdb',
      'key\ufffd': 'in a name too',
      escaped: '\\u0000 is text',
      slash: '\\\ufffd',
      lone: 'x\ufffd',
      pair: '\ud83d\ude00',
    });
    const refused = await request(svc.app)
      .post('/api/v1/workflows')
      .set('Authorization', auth(issuer))
      .send({ name: 'nul-input', steps: [{ id: 'a', type: 'http', url: `${target.url}/ok` }], input: { x: 'a\u0000' } });
    expect(refused.status).toBe(400);
  });
});
