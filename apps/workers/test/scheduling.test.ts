import { TestIssuer, testRedisUrl, uniqueName } from '@platform/testing';
import { QueueEvents } from 'bullmq';
import type { Db } from '../src/database';
import { jobIdOf } from '../src/engine/step-queue';
import { runEnds, startRun, startWorkers, Target, traceOf, type Service } from './harness';

/**
 * Which step runs next, with one slot (WORKERS_CONCURRENCY=1) so that the order is exact: a step
 * its completion made ready runs in the same slot without going through the queue, and the steps
 * of runs under way go before the first steps of new runs.
 */
describe('scheduling', () => {
  const queue = `workers.test-${uniqueName('sched')}`;
  let issuer: TestIssuer;
  let svc: Service;
  let events: QueueEvents;
  const added: string[] = [];
  const target = new Target();

  beforeAll(async () => {
    issuer = await new TestIssuer().start();
    await target.start();
    const url = new URL(testRedisUrl);
    events = new QueueEvents(queue, { connection: { host: url.hostname, port: Number(url.port || 6379) } });
    events.on('added', ({ jobId }) => void added.push(jobId));
    await events.waitUntilReady();
    svc = await startWorkers(issuer, { WORKERS_QUEUE: queue, WORKERS_CONCURRENCY: '1' });
  }, 60_000);
  afterAll(async () => {
    await svc?.stop();
    await events?.close();
    await target?.stop();
    await issuer?.stop();
  });

  const stepsOf = async (runId: string) =>
    (await (svc.infra.db as Db).step.findMany({ where: { runId }, orderBy: { startedAt: 'asc' } })).map((step) => ({
      ...step,
      jobId: jobIdOf({ taskId: step.id, attempt: step.attempt }),
    }));

  it('runs a chain of ready steps in the slot of the step before: only the first step goes through the queue', async () => {
    const run = await startRun(svc, issuer, [
      { id: 'a', type: 'http', url: `${target.url}/echo/a` },
      { id: 'b', type: 'http', url: `${target.url}/echo/b`, depends_on: ['a'] },
      { id: 'c', type: 'http', url: `${target.url}/echo/c`, depends_on: ['b'] },
    ]);
    expect((await runEnds(svc, issuer, run.workflow_id)).state).toBe('completed');
    const steps = await stepsOf(run.workflow_id);
    expect(steps.map((step) => step.stepId)).toEqual(['a', 'b', 'c']);
    const jobs = steps.map((step) => step.jobId);
    expect(added.filter((id) => jobs.includes(id))).toEqual([jobs[0]]);
    // Still one attempt each, recorded like any other.
    const trace = await traceOf(svc, issuer, run.workflow_id);
    expect(trace.timeline.map((entry) => [entry.step, entry.attempt, entry.state])).toEqual([
      ['a', 1, 'completed'],
      ['b', 1, 'completed'],
      ['c', 1, 'completed'],
    ]);
    expect(new Set(trace.timeline.map((entry) => entry.worker)).size).toBe(1);
  });

  it('starts the first steps of a new run after the ready steps of runs under way', async () => {
    // `first` makes two steps ready: one runs in its slot, the other is queued, after `other`'s
    // first step was; it still goes first.
    const underWay = await startRun(svc, issuer, [
      { id: 'first', type: 'http', url: `${target.url}/slow/300` },
      { id: 'left', type: 'http', url: `${target.url}/echo/left`, depends_on: ['first'] },
      { id: 'right', type: 'http', url: `${target.url}/echo/right`, depends_on: ['first'] },
    ]);
    const other = await startRun(svc, issuer, [{ id: 'only', type: 'http', url: `${target.url}/echo/only` }]);
    expect((await runEnds(svc, issuer, underWay.workflow_id)).state).toBe('completed');
    expect((await runEnds(svc, issuer, other.workflow_id)).state).toBe('completed');
    const [first, ...ready] = await stepsOf(underWay.workflow_id);
    const [only] = await stepsOf(other.workflow_id);
    expect(first!.stepId).toBe('first');
    expect(ready.map((step) => step.stepId).sort()).toEqual(['left', 'right']);
    for (const step of ready) expect(step.startedAt!.getTime()).toBeLessThanOrEqual(only!.startedAt!.getTime());
    // The one of the two that did not run in `first`'s slot went through the queue, after `only` did.
    expect(added.indexOf(only!.jobId)).toBeLessThan(added.indexOf(ready[1]!.jobId));
  });
});
