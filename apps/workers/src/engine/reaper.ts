import type { Logger } from '@platform/telemetry';
import type { Redis } from 'ioredis';
import type { EngineRepository } from './engine.repository';
import type { StepDispatcher } from './step-queue';

export interface ReaperOptions {
  intervalMs: number;
  watchdogMs: number;
  /** A queued step whose job has not started this long after it was due is queued again. */
  requeueAfterMs: number;
  /** The queue whose runs this reaper looks after (one lock per queue). */
  queue: string;
}

/**
 * The periodic reaper, run by one worker process at a time (a Redis lock): fails poison steps
 * (orphaned WORKERS_POISON_AFTER times), recovers the other orphaned steps, queues again steps whose job Redis lost, and runs the watchdog that fails runs without
 * progress.
 */
export class Reaper {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(
    private readonly engine: EngineRepository,
    private readonly dispatcher: StepDispatcher,
    private readonly redis: Redis,
    private readonly logger: Logger,
    private readonly options: ReaperOptions,
    private readonly owner: string,
    /** More periodic upkeep (forgetting long-dead workers). */
    private readonly housekeeping: () => Promise<unknown> = async () => undefined,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      if (!this.running) this.running = this.sweep().finally(() => (this.running = undefined));
    }, this.options.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** One pass; skipped when another process holds the lock. */
  async sweep(): Promise<void> {
    try {
      const locked = await this.redis.set(`workers:reaper:${this.options.queue}`, this.owner, 'PX', Math.max(1000, this.options.intervalMs), 'NX');
      if (!locked) return;
      const poisoned = await this.engine.failPoisonSteps();
      if (poisoned.length > 0)
        this.logger.error({ steps: poisoned.map((step) => `${step.runId}/${step.stepId}`) }, 'failed poison steps: their workers died running them');
      const recovered = await this.engine.recoverOrphans();
      if (recovered.length > 0) {
        this.logger.warn({ steps: recovered.map((step) => `${step.runId}/${step.stepId}#${step.attempt}`) }, 'recovered orphaned steps');
        await this.dispatcher.dispatch(recovered);
      }
      const stuck = await this.engine.stuckQueued(this.options.requeueAfterMs);
      if (stuck.length > 0) {
        const count = await this.dispatcher.redispatch(stuck);
        if (count > 0) this.logger.warn({ count }, 'queued lost step jobs again');
      }
      const stalled = await this.engine.failStalled(this.options.watchdogMs);
      if (stalled.length > 0) this.logger.warn({ runs: stalled }, 'watchdog failed runs without progress');
      await this.housekeeping();
    } catch (error) {
      this.logger.warn({ err: error }, 'reaper pass failed');
    }
  }
}
