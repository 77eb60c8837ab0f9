import { eventually, TestIssuer } from '@platform/testing';
import type { ServerResponse } from 'node:http';
import request from 'supertest';
import type { Db } from '../src/database';
import { auth, dagOf, engineOf, runEnds, startRun, startWorkers, Target, testQueue, traceOf, type Service } from './harness';
import { WorkerProcess } from './worker-process';

/**
 * Worker processes of their own, beside an API-only service in this process: a step's worker
 * killed with SIGKILL in the middle of it, and a cancel reaching another process.
 */
describe('worker processes', () => {
  let issuer: TestIssuer;
  let api: Service;
  const target = new Target();
  const processes: WorkerProcess[] = [];
  const workerEnv = {
    WORKERS_QUEUE: testQueue,
    WORKERS_ALLOW_PRIVATE_URLS: 'true',
    WORKERS_LEASE_MS: '1500',
    WORKERS_REAPER_INTERVAL_MS: '300',
    WORKERS_HEARTBEAT_MS: '300',
    WORKERS_DEAD_AFTER_MS: '1500',
  };
  const spawnWorker = async () => {
    const worker = new WorkerProcess(workerEnv).start();
    processes.push(worker);
    await eventually(async () => {
      const live = await request(api.app).get('/api/v1/workers?limit=500').set('Authorization', auth(issuer));
      return live.body.items.some((item: { pid: number }) => item.pid === worker.pid);
    }, 30_000).catch((error) => {
      throw new Error(`worker did not start: ${error}\n${worker.output}`);
    });
    return worker;
  };

  beforeAll(async () => {
    issuer = await new TestIssuer().start();
    await target.start();
    api = await startWorkers(issuer, { SERVICE_ROLE: 'api', WORKERS_DEAD_AFTER_MS: '1500' });
  }, 60_000);
  afterAll(async () => {
    for (const worker of processes) await worker.kill('SIGKILL');
    await api?.stop();
    await target?.stop();
    await issuer?.stop();
  });

  it('finishes a run whose worker was killed with SIGKILL mid-step: another worker takes over, never two at once, terminal states untouched', async () => {
    const first = await spawnWorker();
    // The held step answers only after its first caller is gone.
    const held: ServerResponse[] = [];
    target.handlers.set('/hold', (_req, res) => {
      if (held.length === 0) held.push(res);
      else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ done: true }));
      }
    });
    const run = await startRun(api, issuer, [
      { id: 'before', type: 'http', url: `${target.url}/echo/before` },
      { id: 'held', type: 'http', url: `${target.url}/hold`, depends_on: ['before'], timeout: 60 },
      { id: 'after', type: 'http', url: `${target.url}/echo/after`, depends_on: ['held'], method: 'POST', body: { held: '{{held.body.done}}' } },
    ]);
    await eventually(() => target.inFlight.get('/hold') === 1, 20_000);
    const db = api.infra.db as Db;
    const beforeStep = await db.step.findFirstOrThrow({ where: { runId: run.workflow_id, stepId: 'before' } });
    const heldStep = await db.step.findFirstOrThrow({ where: { runId: run.workflow_id, stepId: 'held' } });
    expect(heldStep).toMatchObject({ state: 'running', attempt: 1 });
    expect(heldStep.leaseOwner).toContain(`:${first.pid}:`);

    await first.kill('SIGKILL');
    // Its lease expires: listed as orphaned (unless the reaper of the next worker is quicker).
    const dead = await eventually(async () => {
      const res = await request(api.app).get('/api/v1/workers/dead?limit=500').set('Authorization', auth(issuer));
      return res.body.items.find((item: { pid: number }) => item.pid === first.pid);
    });
    expect(dead.id).toBe(heldStep.leaseOwner);
    await eventually(async () => {
      const res = await request(api.app).get('/api/v1/workflows/orphaned?limit=500').set('Authorization', auth(issuer));
      return res.body.items.some((item: { workflow_id: string }) => item.workflow_id === run.workflow_id);
    });

    const second = await spawnWorker();
    const dag = await runEnds(api, issuer, run.workflow_id, ['completed', 'failed', 'cancelled'], 30_000);
    expect(dag.state).toBe('completed');
    expect(target.maxInFlight.get('/hold')).toBe(1);
    // The step re-sent after the crash carries the same key: the receiver can tell it from a new one.
    expect(target.callsTo('/hold').map((call) => [call.idempotencyKey, call.attempt])).toEqual([
      [`${run.workflow_id}:held`, '1'],
      [`${run.workflow_id}:held`, '2'],
    ]);
    expect(target.callsTo('/echo/before').filter((call) => call.idempotencyKey?.startsWith(run.workflow_id))).toHaveLength(1);
    expect(JSON.parse(target.callsTo('/echo/after').at(-1)!.body)).toEqual({ held: true });

    const trace = await traceOf(api, issuer, run.workflow_id);
    expect(trace.timeline.map((entry) => [entry.step, entry.attempt, entry.state])).toEqual([
      ['before', 1, 'completed'],
      ['held', 1, 'lost'],
      ['held', 2, 'completed'],
      ['after', 1, 'completed'],
    ]);
    expect(trace.timeline[1]!.worker).toBe(heldStep.leaseOwner);
    expect(trace.timeline[2]!.worker).toContain(`:${second.pid}:`);
    // The completed step before the crash kept its state, output and end time.
    const beforeAfter = await db.step.findFirstOrThrow({ where: { runId: run.workflow_id, stepId: 'before' } });
    expect(beforeAfter).toMatchObject({ state: 'completed', attempt: 1, output: beforeStep.output, finishedAt: beforeStep.finishedAt });
    // The killed worker's attempt can never write again (fencing token 1 is stale).
    const { engine, close } = engineOf(api);
    const stale = await engine.finish(
      { id: heldStep.id, runId: run.workflow_id, stepId: 'held', attempt: 1 },
      { kind: 'failed', error: 'late', retryable: false },
      0,
    );
    await close();
    expect(stale.applied).toBe(false);
    expect((await dagOf(api, issuer, run.workflow_id)).state).toBe('completed');
    held[0]?.destroy();
  }, 90_000);

  it('stops a worker with SIGTERM in the middle of a chain: its step finishes there, the next one goes to the queue and another worker runs it', async () => {
    for (const worker of processes) await worker.kill('SIGKILL');
    const stopping = await spawnWorker();
    let release!: () => void;
    target.handlers.set('/hold-then-answer', (_req, res) => {
      release = () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ held: true }));
      };
    });
    const run = await startRun(api, issuer, [
      { id: 'held', type: 'http', url: `${target.url}/hold-then-answer`, timeout: 60 },
      { id: 'next', type: 'http', url: `${target.url}/echo/next`, depends_on: ['held'] },
    ]);
    await eventually(() => target.inFlight.get('/hold-then-answer') === 1, 20_000);
    const taking = await spawnWorker();
    const stopped = stopping.kill('SIGTERM');
    // The shutdown has begun (no more chains) while the held step still runs; then it answers.
    await new Promise((resolve) => setTimeout(resolve, 500));
    release();
    await stopped;
    expect((await runEnds(api, issuer, run.workflow_id, ['completed', 'failed', 'cancelled'], 30_000)).state).toBe('completed');
    const trace = await traceOf(api, issuer, run.workflow_id);
    expect(trace.timeline.map((entry) => [entry.step, entry.attempt, entry.state])).toEqual([
      ['held', 1, 'completed'],
      ['next', 1, 'completed'],
    ]);
    expect(trace.timeline[0]!.worker).toContain(`:${stopping.pid}:`);
    expect(trace.timeline[1]!.worker).toContain(`:${taking.pid}:`);
  }, 90_000);

  it('fails a poison step whose worker process died twice running it, instead of recovering it for good', async () => {
    for (const worker of processes) await worker.kill('SIGKILL');
    // The step "kills" each worker that runs it: the test does, once the request arrives.
    const poison = '/poison';
    target.handlers.set(poison, () => undefined);
    const run = await startRun(api, issuer, [
      { id: 'before', type: 'http', url: `${target.url}/echo/poison-before` },
      { id: 'deadly', type: 'http', url: `${target.url}${poison}`, depends_on: ['before'], timeout: 60 },
      { id: 'after', type: 'http', url: `${target.url}/echo/poison-after`, depends_on: ['deadly'] },
    ]);
    for (const calls of [1, 2]) {
      const worker = await spawnWorker();
      await eventually(() => target.callsTo(poison).length === calls, 30_000);
      await worker.kill('SIGKILL');
    }
    // The next worker's reaper finds it orphaned a second time: failed, not run a third time.
    await spawnWorker();
    const dag = await runEnds(api, issuer, run.workflow_id, ['completed', 'failed', 'cancelled'], 30_000);
    expect(dag.state).toBe('failed');
    expect(dag.nodes.map((node) => [node.id, node.state])).toEqual([
      ['after', 'blocked'],
      ['before', 'completed'],
      ['deadly', 'failed'],
    ]);
    expect(dag.error).toBe(
      'deadly failed (poison step: its worker died or hung while running it 2 times (WORKERS_POISON_AFTER=2); not run again); blocked steps: after',
    );
    const trace = await traceOf(api, issuer, run.workflow_id);
    expect(trace.timeline.map((entry) => [entry.step, entry.attempt, entry.state])).toEqual([
      ['before', 1, 'completed'],
      ['deadly', 1, 'lost'],
      ['deadly', 2, 'lost'],
    ]);
    expect(target.callsTo(poison)).toHaveLength(2);
    // The recoveries are counted in Postgres: an operator's retry of the step starts the count again.
    const db = api.infra.db as Db;
    expect(await db.step.findFirstOrThrow({ where: { runId: run.workflow_id, stepId: 'deadly' } })).toMatchObject({ state: 'failed', recoveries: 2 });
  }, 150_000);

  it('cancels a step running in another process: its HTTP request is aborted there', async () => {
    if (!processes.some((worker) => worker.child.exitCode === null && worker.child.signalCode === null)) await spawnWorker();
    const run = await startRun(api, issuer, [{ id: 'long', type: 'http', url: `${target.url}/slow/30000` }]);
    await eventually(() => target.inFlight.get('/slow/30000') === 1, 20_000);
    const cancelled = await request(api.app).post(`/api/v1/workflows/${run.workflow_id}/cancel`).set('Authorization', auth(issuer));
    expect(cancelled.status).toBe(200);
    await eventually(() => target.aborted.includes('/slow/30000'));
    const trace = await traceOf(api, issuer, run.workflow_id);
    expect(trace.timeline).toEqual([expect.objectContaining({ state: 'cancelled', worker: expect.not.stringContaining(`:${process.pid}:`) })]);
  }, 60_000);
});
