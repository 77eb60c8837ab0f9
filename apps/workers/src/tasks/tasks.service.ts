import { workers } from '@platform/contracts';
import { conflict, notFound } from '@platform/http';
import type { z } from 'zod';
import { taskRule, type Caller } from '../access';
import type { ControlRepository } from '../control/control.repository';
import type { EngineRepository } from '../engine/engine.repository';
import type { StepDispatcher } from '../engine/step-queue';
import type { TasksRepository } from './tasks.repository';

/** Tasks are the steps of runs, by type: statistics, slow ones, single retries, type timeouts. */
export class TasksService {
  constructor(
    private readonly tasks: TasksRepository,
    private readonly engine: EngineRepository,
    private readonly dispatcher: StepDispatcher,
    private readonly control: ControlRepository,
    private readonly defaultTimeoutMs: number,
  ) {}

  async stats(): Promise<z.infer<typeof workers.TaskStats>> {
    const [counts, durations, timeouts] = await Promise.all([this.tasks.counts(), this.tasks.durations(), this.control.taskTypeTimeouts()]);
    const types = workers.StepType.options.map((type) => {
      const byState: Record<string, number> = Object.fromEntries(workers.StepState.options.map((state) => [state, 0]));
      for (const row of counts) if (row.type === type) byState[row.state] = row.count;
      const timing = durations.find((row) => row.type === type);
      return {
        type,
        counts: byState,
        p50_ms: timing?.p50 ?? null,
        p95_ms: timing?.p95 ?? null,
        throughput_per_s: Math.round(((timing?.recent ?? 0) / 60) * 1000) / 1000,
        timeout_s: Math.round((timeouts.get(type) ?? this.defaultTimeoutMs) / 1000),
      };
    });
    return { types };
  }

  /** Slow tasks of the runs the caller may read (of one run with `runId`). */
  async slow(thresholdMs: number, runId: string | undefined, caller: Caller, limit: number, offset: number) {
    const rows = await this.tasks.slow(thresholdMs, taskRule.readScope(caller), runId, limit, offset);
    return {
      items: rows.map((row) => ({
        task_id: row.id,
        workflow_id: row.runId,
        step: row.stepId,
        type: row.type as workers.StepType,
        state: row.state as z.infer<typeof workers.StepState>,
        attempt: row.attempt,
        duration_ms: row.duration,
      })),
      total: rows[0]?.total ?? 0,
      limit,
      offset,
      threshold_ms: thresholdMs,
    };
  }

  /** Retrying a task changes its run: the run's owner, an editor of its team or `workers:admin`. */
  async retry(taskId: string, timeoutSeconds: number | undefined, caller: Caller) {
    taskRule.writable(caller, await this.tasks.ownerOf(taskId), taskId);
    const result = await this.engine.retryTask(taskId, timeoutSeconds === undefined ? undefined : timeoutSeconds * 1000);
    if (result.status === 'missing') throw notFound(`No task ${taskId}`);
    if (result.status === 'not_retryable')
      throw conflict(`Only failed or cancelled tasks can be retried; this one is ${result.state}`, { state: result.state });
    if (result.status === 'unmet') throw conflict(`The task's dependencies have not completed: ${result.unmet.join(', ')}`, { unmet: result.unmet });
    // Committed: a step Redis did not take is queued again by the reaper (WORKERS_REQUEUE_AFTER_MS).
    await this.dispatcher.dispatch([result.job]).catch(() => undefined);
    return {
      task_id: taskId,
      workflow_id: result.runId,
      step: result.stepId,
      attempt: result.job.attempt,
      state: 'queued' as const,
      timeout_s: timeoutSeconds ?? null,
    };
  }

  async setTimeout(type: workers.StepType, timeoutSeconds: number) {
    const row = await this.control.setTaskTypeTimeout(type, timeoutSeconds * 1000);
    return { type, timeout: Math.round(row.timeoutMs / 1000), updated_at: row.updatedAt.toISOString() };
  }
}
