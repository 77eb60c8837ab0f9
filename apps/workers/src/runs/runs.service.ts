import type { workers } from '@platform/contracts';
import { conflict } from '@platform/http';
import type { z } from 'zod';
import { runRule, type Caller } from '../access';
import type { CancelBus } from '../engine/cancel-bus';
import type { EngineRepository } from '../engine/engine.repository';
import type { StepDispatcher } from '../engine/step-queue';
import type { RunsRepository } from './runs.repository';
import { runView } from './runs.view';

/**
 * Operations on runs: retry, cancel, their graph and trace, orphans. Reading a run needs the rule's
 * read access (owner, team member, `workers:admin`), retry and cancel its write access; a run the
 * caller may not read answers 404 as a missing one does.
 */
export class RunsService {
  constructor(
    private readonly runs: RunsRepository,
    private readonly engine: EngineRepository,
    private readonly dispatcher: StepDispatcher,
    private readonly cancels: CancelBus,
  ) {}

  private async readable(runId: string, caller: Caller) {
    return runRule.readable(caller, await this.runs.find(runId), runId);
  }

  private async writable(runId: string, caller: Caller) {
    return runRule.writable(caller, await this.runs.find(runId), runId);
  }

  async cancel(runId: string, caller: Caller) {
    await this.writable(runId, caller);
    // A run is never deleted, so the one just checked is still there.
    const result = (await this.engine.cancel(runId))!;
    if (!result.changed) throw conflict(`The run already ended ${result.state}; nothing to cancel`, { state: result.state });
    // Committed: a worker that misses the message (Redis down) loses its lease renewal and aborts.
    await this.cancels.publish(result.running).catch(() => undefined);
    return runView(await this.readable(runId, caller));
  }

  async retry(runId: string, caller: Caller) {
    await this.writable(runId, caller);
    const result = (await this.engine.retryRun(runId))!;
    if (!result.changed) throw conflict(`Only failed or cancelled runs can be retried; this one is ${result.state}`, { state: result.state });
    // Committed: steps Redis did not take are queued again by the reaper (WORKERS_REQUEUE_AFTER_MS).
    await this.dispatcher.dispatch(result.jobs).catch(() => undefined);
    return runView(await this.readable(runId, caller));
  }

  async dag(runId: string, caller: Caller): Promise<z.infer<typeof workers.Dag>> {
    const run = await this.readable(runId, caller);
    const steps = await this.runs.steps(runId);
    return {
      workflow_id: run.id,
      state: run.state as z.infer<typeof workers.RunState>,
      error: run.error,
      blocked_steps: run.blockedSteps,
      nodes: steps.map((step) => ({
        id: step.stepId,
        task_id: step.id,
        type: step.type as workers.StepType,
        state: step.state as z.infer<typeof workers.StepState>,
        attempt: step.attempt,
        depends_on: step.dependsOn,
      })),
      edges: steps.flatMap((step) => step.dependsOn.map((source) => ({ source, target: step.stepId }))),
    };
  }

  async trace(runId: string, caller: Caller): Promise<z.infer<typeof workers.Trace>> {
    const run = await this.readable(runId, caller);
    const attempts = await this.runs.attempts(runId);
    return {
      workflow_id: run.id,
      trace_id: run.traceId,
      state: run.state as z.infer<typeof workers.RunState>,
      created_at: run.createdAt.toISOString(),
      finished_at: run.finishedAt?.toISOString() ?? null,
      timeline: attempts.map((attempt) => ({
        step: attempt.stepId,
        task_id: attempt.taskId,
        attempt: attempt.number,
        state: attempt.state,
        worker: attempt.workerId,
        idempotency_key: attempt.idempotencyKey,
        started_at: attempt.startedAt.toISOString(),
        finished_at: attempt.finishedAt?.toISOString() ?? null,
        duration_ms: attempt.durationMs,
        error: attempt.error,
      })),
    };
  }

  async running(caller: Caller, limit: number, offset: number) {
    const { rows, total } = await this.runs.running(runRule.readScope(caller), limit, offset);
    return { items: rows.map(runView), total, limit, offset };
  }

  async orphaned(caller: Caller, limit: number, offset: number) {
    const { ids, details, steps, total } = await this.engine.orphaned(runRule.readScope(caller), limit, offset);
    const byId = new Map(details.map((run) => [run.id, run]));
    const items = ids.flatMap((id) => {
      const run = byId.get(id);
      // Recovered between the two reads: no longer an orphan.
      if (!run || !steps.some((step) => step.runId === id)) return [];
      return [
        {
          workflow_id: id,
          name: run.name,
          state: run.state as z.infer<typeof workers.RunState>,
          orphaned_steps: steps
            .filter((step) => step.runId === id)
            .map((step) => ({
              step: step.stepId,
              task_id: step.id,
              attempt: step.attempt,
              worker: step.leaseOwner,
              lease_expired_at: step.leaseExpiresAt!.toISOString(),
            })),
        },
      ];
    });
    return { items, total, limit, offset };
  }

  /** Recovers the orphaned steps of the runs the caller may change (all of them for `workers:admin`). */
  async recoverOrphaned(caller: Caller) {
    const runs = runRule.isAdmin(caller) ? undefined : (await this.engine.orphanedRuns()).filter((run) => runRule.canWrite(caller, run)).map((run) => run.id);
    if (runs?.length === 0) return { recovered: 0, steps: [] };
    // Poison steps (their workers died running them WORKERS_POISON_AFTER times) fail instead.
    await this.engine.failPoisonSteps(runs);
    const recovered = await this.engine.recoverOrphans(runs);
    // Committed: steps Redis did not take are queued again by the reaper (WORKERS_REQUEUE_AFTER_MS).
    await this.dispatcher.dispatch(recovered).catch(() => undefined);
    return { recovered: recovered.length, steps: recovered.map((step) => ({ workflow_id: step.runId, step: step.stepId, attempt: step.attempt })) };
  }
}
