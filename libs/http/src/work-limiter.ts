import { ApiError } from './errors';

export interface WorkLimiterOptions {
  /** Tasks running at once. */
  concurrency: number;
  /** Tasks waiting for a turn; one more is refused with 503 and Retry-After. */
  queue: number;
  /** What the 503 says is busy. */
  name: string;
}

/**
 * Bounds expensive work (password hashing, model calls) so that a burst costs a bounded amount of
 * memory: `concurrency` run, `queue` wait in order, and the rest are refused at once with a 503
 * the client can retry, instead of all running together. A waiting caller whose `signal` aborts
 * (a client that went away) leaves the queue and is rejected with the signal's reason.
 */
export class WorkLimiter {
  private running = 0;
  private waiting: Array<() => void> = [];

  constructor(private readonly options: WorkLimiterOptions) {}

  async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (this.running >= this.options.concurrency) {
      if (this.waiting.length >= this.options.queue) {
        throw new ApiError(
          503,
          'api_error',
          'service_unavailable',
          `Too much ${this.options.name} work at once; try again shortly`,
          { busy: this.options.name },
          { 'Retry-After': '1' },
        );
      }
      await this.turn(signal);
    } else this.running++;
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }

  /** Waits in line; the slot is handed over by the task that frees it (`running` is unchanged). */
  private turn(signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const wake = () => {
        signal?.removeEventListener('abort', leave);
        resolve();
      };
      const leave = () => {
        this.waiting = this.waiting.filter((waiter) => waiter !== wake);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', leave, { once: true });
      this.waiting.push(wake);
    });
  }

  get stats(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }
}
