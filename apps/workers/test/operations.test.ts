import { eventually, TestIssuer, uniqueName } from '@platform/testing';
import request from 'supertest';
import type { Db } from '../src/database';
import { auth, dagOf, engineOf, runEnds, startRun, startWorkers, Target, traceOf, type Service } from './harness';

describe('operating runs', () => {
  let issuer: TestIssuer;
  let svc: Service;
  let engineHandle: ReturnType<typeof engineOf>;
  const target = new Target();
  beforeAll(async () => {
    issuer = await new TestIssuer().start();
    await target.start();
    svc = await startWorkers(issuer, {
      WORKERS_DATASOURCES: JSON.stringify({
        scratch: { url: 'postgresql://postgres@127.0.0.1:5432/test' },
        scratchrw: { url: 'postgresql://postgres@127.0.0.1:5432/test', writable: true },
      }),
    });
    engineHandle = engineOf(svc);
  });
  afterAll(async () => {
    await engineHandle?.close();
    await svc?.stop();
    await target?.stop();
    await issuer?.stop();
  });
  const as = (permissions?: string[]) => auth(issuer, permissions);

  it('cancels a run during a long HTTP step: the request is really aborted and nothing more starts', async () => {
    const run = await startRun(svc, issuer, [
      { id: 'long', type: 'http', url: `${target.url}/slow/20000` },
      { id: 'after', type: 'http', url: `${target.url}/ok`, depends_on: ['long'] },
    ]);
    await eventually(() => target.inFlight.get('/slow/20000') === 1);
    const cancelled = await request(svc.app).post(`/api/v1/workflows/${run.workflow_id}/cancel`).set('Authorization', as());
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.state).toBe('cancelled');
    await eventually(() => target.aborted.includes('/slow/20000'));
    const dag = await dagOf(svc, issuer, run.workflow_id);
    expect(dag.nodes.map((node) => [node.id, node.state])).toEqual([
      ['after', 'cancelled'],
      ['long', 'cancelled'],
    ]);
    const trace = await traceOf(svc, issuer, run.workflow_id);
    expect(trace.timeline).toEqual([expect.objectContaining({ step: 'long', state: 'cancelled' })]);
    // A terminal run stays as it is: a second cancel is a conflict.
    expect((await request(svc.app).post(`/api/v1/workflows/${run.workflow_id}/cancel`).set('Authorization', as())).status).toBe(409);
  });

  it('retries a failed run: completed steps keep their outputs, failed and blocked ones run again', async () => {
    let healthy = false;
    target.handlers.set('/flaky', (_req, res) => {
      res.writeHead(healthy ? 200 : 500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ healthy }));
    });
    const run = await startRun(svc, issuer, [
      { id: 'first', type: 'http', url: `${target.url}/echo/first` },
      { id: 'flaky', type: 'http', url: `${target.url}/flaky`, depends_on: ['first'] },
      { id: 'last', type: 'http', url: `${target.url}/echo/last`, depends_on: ['flaky'] },
    ]);
    const failed = await runEnds(svc, issuer, run.workflow_id);
    expect(failed.state).toBe('failed');
    const running = await request(svc.app).get(`/api/v1/workflows/running`).set('Authorization', as());
    expect(running.status).toBe(200);
    const stored = await request(svc.app).get(`/api/v1/workflows/${run.workflow_id}/trace`).set('Authorization', as());
    expect(stored.body.timeline.map((entry: { step: string }) => entry.step)).toEqual(['first', 'flaky']);
    // Retrying a run that has not failed is refused; a missing run is 404.
    healthy = true;
    const firstCalls = target.callsTo('/echo/first').length;
    const retried = await request(svc.app).post(`/api/v1/workflows/${run.workflow_id}/retry`).set('Authorization', as());
    expect(retried.status).toBe(202);
    expect(retried.body.state).toBe('running');
    const done = await runEnds(svc, issuer, run.workflow_id);
    expect(done.state).toBe('completed');
    expect(target.callsTo('/echo/first').length).toBe(firstCalls);
    const trace = await traceOf(svc, issuer, run.workflow_id);
    expect(trace.timeline.map((entry) => [entry.step, entry.attempt, entry.state])).toEqual([
      ['first', 1, 'completed'],
      ['flaky', 1, 'failed'],
      ['flaky', 2, 'completed'],
      ['last', 1, 'completed'],
    ]);
    expect((await request(svc.app).post(`/api/v1/workflows/${run.workflow_id}/retry`).set('Authorization', as())).status).toBe(409);
    expect((await request(svc.app).post(`/api/v1/workflows/00000000-0000-4000-8000-000000000000/retry`).set('Authorization', as())).status).toBe(404);
  });

  it('retries one task with its own timeout, and applies a task type timeout to attempts that start afterwards', async () => {
    const run = await startRun(svc, issuer, [{ id: 'slowish', type: 'http', url: `${target.url}/slow/1500`, timeout: 1 }]);
    const failed = await runEnds(svc, issuer, run.workflow_id);
    expect(failed.state).toBe('failed');
    const taskId = failed.nodes[0]!.task_id;
    const retried = await request(svc.app).post(`/api/v1/tasks/${taskId}/retry?timeout=5`).set('Authorization', as());
    expect(retried.status).toBe(202);
    expect(retried.body).toMatchObject({ task_id: taskId, attempt: 2, state: 'queued', timeout_s: 5 });
    expect((await runEnds(svc, issuer, run.workflow_id)).state).toBe('completed');
    expect((await request(svc.app).post(`/api/v1/tasks/${taskId}/retry`).set('Authorization', as())).status).toBe(409);

    const patched = await request(svc.app).patch('/api/v1/task-types/agent').set('Authorization', as()).send({ timeout: 1 });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ type: 'agent', timeout: 1 });
    try {
      const agentRun = await startRun(svc, issuer, [{ id: 'think', type: 'agent', agent: 'slow-agent', url: `${target.url}/slow/2500`, input: { q: 'x' } }]);
      const ended = await runEnds(svc, issuer, agentRun.workflow_id);
      expect(ended.state).toBe('failed');
      expect((await traceOf(svc, issuer, agentRun.workflow_id)).timeline[0]).toMatchObject({ state: 'timed_out', error: 'timed out after 1000 ms' });
    } finally {
      await request(svc.app).patch('/api/v1/task-types/agent').set('Authorization', as()).send({ timeout: 60 });
    }
    const stats = await request(svc.app).get('/api/v1/tasks/stats').set('Authorization', as());
    expect(stats.status).toBe(200);
    const http = stats.body.types.find((type: { type: string }) => type.type === 'http');
    expect(http.counts.completed).toBeGreaterThan(0);
    expect(http.p50_ms).toEqual(expect.any(Number));
    expect(http.p95_ms).toBeGreaterThanOrEqual(http.p50_ms);
    const slow = await request(svc.app).get('/api/v1/tasks/slow?threshold=1000&limit=500').set('Authorization', as());
    expect(slow.status).toBe(200);
    expect(slow.body.items.map((item: { task_id: string }) => item.task_id)).toContain(taskId);
    expect(slow.body.items.every((item: { duration_ms: number }) => item.duration_ms > 1000)).toBe(true);
  });

  it('posts an agent task with its input, and runs database steps read-only unless the datasource allows writes', async () => {
    const table = uniqueName('t').replace('-', '_');
    const run = await startRun(
      svc,
      issuer,
      [
        { id: 'ask', type: 'agent', agent: 'echo', url: `${target.url}/echo/agent`, input: { question: '{{input.q}}' } },
        { id: 'create', type: 'database', datasource: 'scratchrw', statement: `CREATE TABLE IF NOT EXISTS ${table} (v text)` },
        {
          id: 'write',
          type: 'database',
          datasource: 'scratchrw',
          statement: `INSERT INTO ${table} (v) VALUES ($1)`,
          params: ['{{ask.body.body.task.question}}'],
          depends_on: ['ask', 'create'],
        },
        { id: 'read', type: 'database', datasource: 'scratch', statement: `SELECT v FROM ${table}`, depends_on: ['write'] },
        { id: 'sneaky', type: 'database', datasource: 'scratch', statement: `DELETE FROM ${table}`, depends_on: ['read'] },
      ],
      { input: { q: 'why?' } },
    );
    const dag = await runEnds(svc, issuer, run.workflow_id);
    expect(dag.nodes.map((node) => [node.id, node.state])).toEqual([
      ['ask', 'completed'],
      ['create', 'completed'],
      ['read', 'completed'],
      ['sneaky', 'failed'],
      ['write', 'completed'],
    ]);
    const agentCall = target.callsTo('/echo/agent').at(-1)!;
    expect(JSON.parse(agentCall.body)).toMatchObject({ task: { question: 'why?' }, agent: 'echo', workflow_id: run.workflow_id, step: 'ask', attempt: 1 });
    const trace = await traceOf(svc, issuer, run.workflow_id);
    expect(trace.timeline.find((entry) => entry.step === 'sneaky')!.error).toMatch(/read-only transaction/);
    const db = svc.infra.db as Db;
    const read = await db.step.findFirstOrThrow({ where: { runId: run.workflow_id, stepId: 'read' } });
    expect(read.output).toEqual({ rowCount: 1, rows: [{ v: 'why?' }], truncated: false });
  });

  it('lists orphaned steps, recovers them with a new attempt, and fences out the lost worker', async () => {
    const db = svc.infra.db as Db;
    const { engine } = engineHandle;
    const def = await db.definition.create({ data: { name: uniqueName('orphan'), version: 1, hash: uniqueName('h'), steps: [] } });
    // A run whose step a worker claimed and then stopped renewing (its process died).
    const { run, jobs } = await engine.createRun({
      definitionId: def.id,
      name: def.name,
      version: 1,
      steps: [{ id: 'only', type: 'http', url: `${target.url}/echo/orphan`, depends_on: [] }],
      runInput: {},
      traceId: 'a'.repeat(32),
    });
    const claimed = await engine.claim(jobs[0]!.taskId, 1, 'ghost-worker', 1, 1000);
    expect(claimed).toBeDefined();
    await new Promise((resolve) => setTimeout(resolve, 20));
    // The reaper may get there first; either way the step is listed until recovered, then runs.
    const listed = await request(svc.app).get('/api/v1/workflows/orphaned').set('Authorization', as());
    expect(listed.status).toBe(200);
    const mine = listed.body.items.find((item: { workflow_id: string }) => item.workflow_id === run.id);
    if (mine) {
      expect(mine.orphaned_steps).toEqual([expect.objectContaining({ step: 'only', attempt: 1, worker: 'ghost-worker' })]);
      const recovered = await request(svc.app).post('/api/v1/workflows/recover-orphaned').set('Authorization', as());
      expect(recovered.status).toBe(200);
    }
    expect((await runEnds(svc, issuer, run.id)).state).toBe('completed');
    const trace = await traceOf(svc, issuer, run.id);
    expect(trace.timeline.map((entry) => [entry.attempt, entry.state, entry.worker])).toEqual([
      [1, 'lost', 'ghost-worker'],
      [2, 'completed', expect.not.stringMatching('ghost-worker')],
    ]);
    // The ghost comes back and reports: its attempt no longer holds the step, nothing changes.
    const late = await engine.finish(claimed!, { kind: 'failed', error: 'late', retryable: false }, 0);
    expect(late.applied).toBe(false);
    expect((await db.step.findUniqueOrThrow({ where: { id: claimed!.id } })).state).toBe('completed');
    expect((await db.run.findUniqueOrThrow({ where: { id: run.id } })).state).toBe('completed');
  });

  it('lists this worker process with its heartbeat, and no dead worker of its own', async () => {
    const live = await request(svc.app)
      .get('/api/v1/workers')
      .set('Authorization', as(['workers:read']));
    expect(live.status).toBe(200);
    expect(live.body.items).toEqual(
      expect.arrayContaining([expect.objectContaining({ pid: process.pid, concurrency: 32, task_types: ['http', 'agent', 'database'] })]),
    );
    const dead = await request(svc.app)
      .get('/api/v1/workers/dead')
      .set('Authorization', as(['workers:read']));
    expect(dead.status).toBe(200);
    expect(
      dead.body.items.filter(
        (worker: { pid: number; stopped_at: null }) =>
          worker.pid === process.pid && live.body.items.some((l: { id: string }) => l.id === (worker as unknown as { id: string }).id),
      ),
    ).toEqual([]);
  });

  it('the watchdog fails a run that made no progress for too long, naming the stuck steps', async () => {
    const db = svc.infra.db as Db;
    const { engine } = engineHandle;
    const def = await db.definition.create({ data: { name: uniqueName('stalled'), version: 1, hash: uniqueName('h'), steps: [] } });
    // A step whose dependency completed an hour ago but that was never queued: nothing will move it.
    const { run } = await engine.createRun({
      definitionId: def.id,
      name: def.name,
      version: 1,
      steps: [
        { id: 'done', type: 'http', url: `${target.url}/ok`, depends_on: [] },
        { id: 'behind', type: 'http', url: `${target.url}/ok`, depends_on: ['done'] },
      ],
      runInput: {},
      traceId: 'b'.repeat(32),
    });
    const anHourAgo = new Date(Date.now() - 3_600_000);
    await db.step.updateMany({
      where: { runId: run.id, stepId: 'done' },
      data: { state: 'completed', startedAt: anHourAgo, finishedAt: anHourAgo, queuedAt: anHourAgo, availableAt: anHourAgo },
    });
    await db.run.update({ where: { id: run.id }, data: { state: 'running', lastProgressAt: anHourAgo } });
    const dag = await runEnds(svc, issuer, run.id);
    expect(dag.state).toBe('failed');
    expect(dag.error).toBe('no progress for 600 s (deadlock suspected); stuck steps: behind');
    expect(dag.blocked_steps).toEqual(['behind']);
    expect(dag.nodes.map((node) => [node.id, node.state])).toEqual([
      ['behind', 'cancelled'],
      ['done', 'completed'],
    ]);
  });

  it('rebuilds lost queue state from Postgres: a queued step whose job never reached Redis is queued again', async () => {
    const db = svc.infra.db as Db;
    const { engine } = engineHandle;
    const def = await db.definition.create({ data: { name: uniqueName('lost'), version: 1, hash: uniqueName('h'), steps: [] } });
    // createRun without dispatching its jobs: as if Redis had been flushed after the commit.
    const { run } = await engine.createRun({
      definitionId: def.id,
      name: def.name,
      version: 1,
      steps: [
        { id: 'one', type: 'http', url: `${target.url}/echo/lost`, depends_on: [] },
        { id: 'two', type: 'http', url: `${target.url}/echo/lost2`, depends_on: ['one'] },
      ],
      runInput: {},
      traceId: 'c'.repeat(32),
    });
    await db.step.updateMany({ where: { runId: run.id, stepId: 'one' }, data: { availableAt: new Date(Date.now() - 60_000) } });
    const dag = await runEnds(svc, issuer, run.id);
    expect(dag.state).toBe('completed');
    expect((await traceOf(svc, issuer, run.id)).timeline.map((entry) => [entry.step, entry.attempt, entry.state])).toEqual([
      ['one', 1, 'completed'],
      ['two', 1, 'completed'],
    ]);
  });
});
