/** Counts free slots; `acquire` waits for one (first come, first served) and resolves a release. */
export class Semaphore {
  private waiting: Array<() => void> = [];

  constructor(private free: number) {}

  get available(): number {
    return this.free;
  }

  async acquire(signal?: AbortSignal): Promise<() => void> {
    if (this.free > 0) {
      this.free--;
    } else {
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
