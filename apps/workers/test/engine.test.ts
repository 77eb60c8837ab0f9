import { TestIssuer, uniqueName } from '@platform/testing';
import type { Db } from '../src/database';
import { engineOf, startWorkers, type Service } from './harness';

/**
 * The engine's batched hot path against the real Postgres (an API-role service: no worker takes
 * the steps, the test plays the workers): many claims and completions in one statement each.
 */
describe('batched claims and completions', () => {
  let issuer: TestIssuer;
  let svc: Service;
  let handle: ReturnType<typeof engineOf>;
  beforeAll(async () => {
    issuer = await new TestIssuer().start();
    svc = await startWorkers(issuer, { SERVICE_ROLE: 'api' });
    handle = engineOf(svc);
  });
  afterAll(async () => {
    await handle?.close();
    await svc?.stop();
    await issuer?.stop();
  });

  async function diamond() {
    const db = svc.infra.db as Db;
    const def = await db.definition.create({ data: { name: uniqueName('batch'), version: 1, hash: uniqueName('h'), steps: [] } });
    const step = (id: string, depends_on: string[] = []) => ({ id, type: 'http' as const, url: 'http://127.0.0.1:9/ok', depends_on });
    return handle.engine.createRun({
      definitionId: def.id,
      name: def.name,
      version: 1,
      steps: [step('a'), step('b'), step('c'), step('join', ['a', 'b']), step('tail', ['join', 'c'])],
      runInput: {},
      traceId: 'b'.repeat(32),
    });
  }

  it('completes two dependencies of one step in one batch: the step is queued once, with one job', async () => {
    const { engine } = handle;
    const db = svc.infra.db as Db;
    const { run, jobs } = await diamond();
    expect(jobs).toHaveLength(3);
    const claimed = await engine.claimMany(jobs, 'batch-worker', 30_000, 60_000);
    expect(claimed.map((step) => step?.stepId)).toEqual(['a', 'b', 'c']);
    // A stale attempt in the same batch claims nothing and changes nothing.
    expect(await engine.claimMany([{ taskId: jobs[0]!.taskId, attempt: 2 }], 'batch-worker', 30_000, 60_000)).toEqual([undefined]);

    const [a, b] = claimed as NonNullable<(typeof claimed)[number]>[];
    const done = await engine.completeMany([
      { step: a, output: { from: 'a' } },
      { step: b, output: { from: 'b' } },
    ]);
    const join = await db.step.findFirstOrThrow({ where: { runId: run.id, stepId: 'join' } });
    expect(join).toMatchObject({ state: 'queued', attempt: 1, remainingDeps: 0 });
    expect(done.flatMap((result) => result.jobs)).toEqual([{ taskId: join.id, attempt: 1 }]);
    expect(done.map((result) => result.applied)).toEqual([true, true]);
    // A second completion of the same attempt writes nothing: a terminal state is never overwritten.
    expect(await engine.completeMany([{ step: a, output: { from: 'a again' } }])).toEqual([{ applied: false, leaf: false, jobs: [] }]);
    expect((await db.step.findFirstOrThrow({ where: { runId: run.id, stepId: 'a' } })).output).toEqual({ from: 'a' });
    const tail = await db.step.findFirstOrThrow({ where: { runId: run.id, stepId: 'tail' } });
    expect(tail).toMatchObject({ state: 'waiting', remainingDeps: 2 });
    const attempts = await db.attempt.findMany({ where: { runId: run.id }, orderBy: { stepId: 'asc' } });
    expect(attempts.map((attempt) => [attempt.stepId, attempt.state])).toEqual([
      ['a', 'completed'],
      ['b', 'completed'],
      ['c', 'running'],
    ]);
  });

  it('claims, in the completion itself, the dependant it made ready, which no other completion can then claim or queue', async () => {
    const { engine } = handle;
    const db = svc.infra.db as Db;
    const { run, jobs } = await diamond();
    const [a, b, c] = (await engine.claimMany(jobs, 'batch-worker', 30_000, 60_000)) as Array<NonNullable<Awaited<ReturnType<typeof engine.claim>>>>;
    const claim = { workerId: 'eager-worker', leaseMs: 30_000, defaultTimeoutMs: 60_000 };

    // a alone makes nothing ready; b then makes join ready, claimed for b's slot with a's output.
    const [first] = await engine.completeMany([{ step: a!, output: { from: 'a' } }], claim);
    expect(first).toEqual({ applied: true, leaf: false, jobs: [] });
    const [second] = await engine.completeMany([{ step: b!, output: { from: 'b' } }], claim);
    expect(second!.jobs).toEqual([]);
    expect(second!.next).toMatchObject({ stepId: 'join', attempt: 1, runId: run.id, traceId: 'b'.repeat(32), timeoutMs: 60_000 });
    const join = await db.step.findFirstOrThrow({ where: { runId: run.id, stepId: 'join' } });
    expect(join).toMatchObject({ state: 'running', attempt: 1, leaseOwner: 'eager-worker', remainingDeps: 0 });
    expect(await db.attempt.findFirst({ where: { taskId: join.id, number: 1 } })).toMatchObject({ state: 'running', workerId: 'eager-worker' });

    // The claimed step is held: another completion of its dependencies cannot claim or queue it again.
    const [third] = await engine.completeMany([{ step: c!, output: 3 }], claim);
    expect(third).toEqual({ applied: true, leaf: false, jobs: [] });
    const [last] = await engine.completeMany([{ step: second!.next!, output: 4 }], claim);
    expect(last!.next).toMatchObject({ stepId: 'tail', attempt: 1 });
  });

  it('gives the dependants a completion made ready beyond its own to the slots of completions of the batch that made none', async () => {
    const { engine } = handle;
    const db = svc.infra.db as Db;
    const def = await db.definition.create({ data: { name: uniqueName('spare'), version: 1, hash: uniqueName('h'), steps: [] } });
    const step = (id: string, depends_on: string[] = []) => ({ id, type: 'http' as const, url: 'http://127.0.0.1:9/ok', depends_on });
    const { run, jobs } = await engine.createRun({
      definitionId: def.id,
      name: def.name,
      version: 1,
      // fan makes two steps ready at once; leaf makes none; last is ready only once both left and right completed.
      steps: [step('fan'), step('leaf'), step('left', ['fan']), step('right', ['fan']), step('more', ['fan']), step('last', ['left', 'right'])],
      runInput: {},
      traceId: 'c'.repeat(32),
    });
    const [fan, leaf] = (await engine.claimMany(jobs, 'batch-worker', 30_000, 60_000)) as Array<NonNullable<Awaited<ReturnType<typeof engine.claim>>>>;
    const claim = { workerId: 'eager-worker', leaseMs: 30_000, defaultTimeoutMs: 60_000 };

    const [fanDone, leafDone] = await engine.completeMany(
      [
        { step: fan!, output: 1 },
        { step: leaf!, output: 2 },
      ],
      claim,
    );
    // Three dependants became ready for two slots: each slot runs one, the third is queued.
    const ran = [fanDone!.next?.stepId, leafDone!.next?.stepId];
    expect(ran.every((stepId) => stepId !== undefined)).toBe(true);
    const queued = [...fanDone!.jobs, ...leafDone!.jobs];
    expect(queued).toHaveLength(1);
    const steps = await db.step.findMany({ where: { runId: run.id, stepId: { in: ['left', 'right', 'more'] } } });
    const byState = (state: string) => steps.filter((row) => row.state === state).map((row) => row.stepId);
    expect(byState('running').sort()).toEqual([...ran].sort());
    expect(byState('queued')).toEqual([steps.find((row) => row.id === queued[0]!.taskId)!.stepId]);
    for (const row of steps.filter((candidate) => candidate.state === 'running')) expect(row.leaseOwner).toBe('eager-worker');
    expect(await db.attempt.count({ where: { runId: run.id, state: 'running', workerId: 'eager-worker' } })).toBe(2);
  });

  it('lends no more steps than were spare: of two completions that made none ready, one runs the spare step, across runs too', async () => {
    const { engine } = handle;
    const db = svc.infra.db as Db;
    const step = (id: string, depends_on: string[] = []) => ({ id, type: 'http' as const, url: 'http://127.0.0.1:9/ok', depends_on });
    const start = async (steps: ReturnType<typeof step>[]) => {
      const def = await db.definition.create({ data: { name: uniqueName('lend'), version: 1, hash: uniqueName('h'), steps: [] } });
      return engine.createRun({ definitionId: def.id, name: def.name, version: 1, steps, runInput: {}, traceId: 'd'.repeat(32) });
    };
    const first = await start([step('fan'), step('leaf'), step('left', ['fan']), step('right', ['fan'])]);
    const second = await start([step('solo')]);
    const claimed = (await engine.claimMany([...first.jobs, ...second.jobs], 'batch-worker', 30_000, 60_000)) as Array<
      NonNullable<Awaited<ReturnType<typeof engine.claim>>>
    >;
    const claim = { workerId: 'eager-worker', leaseMs: 30_000, defaultTimeoutMs: 60_000 };
    const done = await engine.completeMany(
      claimed.map((step) => ({ step, output: step.stepId })),
      claim,
    );
    const byStep = new Map(claimed.map((step, i) => [step.stepId, done[i]!]));
    // fan runs one of its two; the other goes to one of the two slots that made none ready.
    expect(['left', 'right']).toContain(byStep.get('fan')!.next?.stepId);
    const lent = [byStep.get('leaf')!, byStep.get('solo')!];
    expect(lent.filter((result) => result.next !== undefined)).toHaveLength(1);
    expect(lent.map((result) => result.leaf)).toEqual([true, true]);
    expect(done.flatMap((result) => result.jobs)).toEqual([]);
    const running = await db.step.findMany({ where: { runId: first.run.id, stepId: { in: ['left', 'right'] } } });
    expect(running.map((row) => [row.state, row.leaseOwner])).toEqual([
      ['running', 'eager-worker'],
      ['running', 'eager-worker'],
    ]);
  });

  it('fences out a completion whose attempt no longer holds the step, and ends the run when its last step completes', async () => {
    const { engine } = handle;
    const db = svc.infra.db as Db;
    const { run, jobs } = await diamond();
    const [a, b, c] = (await engine.claimMany(jobs, 'batch-worker', 30_000, 60_000)) as Array<NonNullable<Awaited<ReturnType<typeof engine.claim>>>>;
    // Recovery moved step c on to attempt 2: the worker holding attempt 1 can no longer write.
    await db.step.update({ where: { id: c!.id }, data: { state: 'queued', attempt: 2 } });
    const first = await engine.completeMany([
      { step: a!, output: 1 },
      { step: b!, output: 2 },
      { step: c!, output: 'stale' },
    ]);
    expect(first.map((result) => result.applied)).toEqual([true, true, false]);
    const [c2] = await engine.claimMany([{ taskId: c!.id, attempt: 2 }], 'batch-worker', 30_000, 60_000);
    const [join] = await engine.claimMany(first[0]!.jobs.length ? first[0]!.jobs : first[1]!.jobs, 'batch-worker', 30_000, 60_000);
    const second = await engine.completeMany([
      { step: c2!, output: 3 },
      { step: join!, output: 4 },
    ]);
    const [tail] = await engine.claimMany(
      second.flatMap((result) => result.jobs),
      'batch-worker',
      30_000,
      60_000,
    );
    expect(tail?.stepId).toBe('tail');
    const [last] = await engine.completeMany([{ step: tail!, output: 5 }]);
    expect(last).toEqual({ applied: true, leaf: true, jobs: [] });
    expect(await engine.settleRuns([run.id])).toEqual(['completed']);
    expect((await db.run.findUniqueOrThrow({ where: { id: run.id } })).state).toBe('completed');
    expect((await db.step.findFirstOrThrow({ where: { runId: run.id, stepId: 'c' } })).output).toBe(3);
  });
});
