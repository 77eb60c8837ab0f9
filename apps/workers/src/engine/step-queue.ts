import { defineQueue, type TypedQueue } from '@platform/queues';
import { z } from 'zod';
import { withRedisTimeout } from '../redis-watch';
import type { StepJob } from './engine.repository';

const StepJobPayload = z.object({ taskId: z.string().uuid(), attempt: z.number().int().min(1) });

/**
 * One job per step attempt: "attempt N of task T may start now". Postgres holds everything else.
 * The name is WORKERS_QUEUE (default `workers.steps`): separate worker pools use separate queues.
 */
export const stepQueue = (name: string) => defineQueue(name, StepJobPayload);

/** Puts step jobs on the queue. The job id names the attempt, so adding one twice is harmless. */
export class StepDispatcher {
  constructor(
    private readonly queue: TypedQueue<typeof StepJobPayload>,
    /** How long Redis may take to accept the jobs before the dispatch fails with 503 naming `cache`. */
    private readonly timeoutMs: number,
  ) {}

  /**
   * All the jobs in one round trip to Redis (BullMQ's addBulk). The first steps of a new run
   * (`newRun`) wait behind the steps of runs under way, which the queue hands out first: started
   * runs finish before new ones start, instead of every run advancing at the pace of the backlog.
   * A Redis that does not answer within the timeout fails it with 503 naming `cache`: a job that
   * lands later is harmless (its job id names the attempt), and the reaper queues again what is
   * still queued in Postgres.
   */
  async dispatch(jobs: readonly StepJob[], { newRun = false } = {}): Promise<void> {
    if (jobs.length === 0) return;
    await withRedisTimeout(this.add(jobs, newRun), this.timeoutMs);
  }

  private async add(jobs: readonly StepJob[], newRun: boolean): Promise<void> {
    await this.queue.addBulk(
      jobs.map((job) => ({
        name: 'step',
        payload: { taskId: job.taskId, attempt: job.attempt },
        options: {
          jobId: jobIdOf(job),
          delay: job.delayMs && job.delayMs > 0 ? job.delayMs : undefined,
          // BullMQ hands out jobs without a priority before any job with one.
          priority: newRun ? NEW_RUN_PRIORITY : undefined,
          attempts: 3,
          backoff: { type: 'exponential', delay: 500 },
          removeOnComplete: true,
          removeOnFail: { count: 1000 },
        },
      })),
    );
  }

  /** Queues again jobs that Redis lost or that ended without claiming their step. */
  async redispatch(jobs: readonly StepJob[]): Promise<number> {
    let count = 0;
    for (const job of jobs) {
      const existing = await this.queue.queue.getJob(jobIdOf(job));
      if (existing) {
        const state = await existing.getState();
        if (state !== 'completed' && state !== 'failed' && state !== 'unknown') continue;
        await existing.remove().catch(() => undefined);
      }
      await this.dispatch([job]);
      count++;
    }
    return count;
  }
}

const NEW_RUN_PRIORITY = 1;

export const jobIdOf = (job: Pick<StepJob, 'taskId' | 'attempt'>) => `${job.taskId}_${job.attempt}`;

/** Exponential backoff with jitter: `initialDelay * 2^(failures-1)`, plus up to half of it at random. */
export function retryDelay(initialDelayMs: number, failures: number, random = Math.random): number {
  const base = initialDelayMs * 2 ** Math.max(0, failures - 1);
  return Math.min(3_600_000, Math.round(base + base * 0.5 * random()));
}
