import { ApiError } from '@platform/http';

/**
 * Counts free slots; `acquire` waits for one (first come, first served) and resolves a release.
 * At most `maxWaiting` wait: one more is refused with 503 and Retry-After (as the platform's
 * WorkLimiter does), and a waiter whose signal aborts leaves the line.
 */
export class Semaphore {
  private waiting: Array<() => void> = [];

  constructor(
    private free: number,
    private readonly maxWaiting = Number.POSITIVE_INFINITY,
    private readonly name = 'model',
  ) {}

  get queued(): number {
    return this.waiting.length;
  }

  get available(): number {
    return this.free;
  }

  async acquire(signal?: AbortSignal): Promise<() => void> {
    if (this.free > 0) {
      this.free--;
    } else {
      if (this.waiting.length >= this.maxWaiting) {
        throw new ApiError(
          503,
          'api_error',
          'service_unavailable',
          `Too many requests wait for ${this.name}; try again shortly`,
          { busy: this.name, waiting: this.waiting.length },
          { 'Retry-After': '1' },
        );
      }
      await new Promise<void>((resolve, reject) => {
        const wake = () => {
          signal?.removeEventListener('abort', abort);
          resolve();
        };
        const abort = () => {
          this.waiting = this.waiting.filter((waiter) => waiter !== wake);
          reject(signal?.reason ?? new Error('aborted'));
        };
        if (signal?.aborted) return abort();
        signal?.addEventListener('abort', abort, { once: true });
        this.waiting.push(wake);
      });
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    };
  }
}
