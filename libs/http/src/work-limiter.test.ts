import { ApiError } from './errors';
import { WorkLimiter } from './work-limiter';

describe('WorkLimiter', () => {
  it('runs at most `concurrency` tasks, queues up to `queue` in order, and refuses the rest with 503', async () => {
    const limiter = new WorkLimiter({ concurrency: 2, queue: 2, name: 'hashing' });
    let active = 0;
    let peak = 0;
    const order: number[] = [];
    const releases: Array<() => void> = [];
    const task = (n: number) => () =>
      new Promise<number>((resolve) => {
        active++;
        peak = Math.max(peak, active);
        releases.push(() => {
          active--;
          order.push(n);
          resolve(n);
        });
      });
    const results = [1, 2, 3, 4, 5].map((n) => limiter.run(task(n)).catch((error: unknown) => error));
    await new Promise((resolve) => setImmediate(resolve));
    expect(limiter.stats).toEqual({ running: 2, waiting: 2 });
    const refused = await results[4];
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ status: 503, details: { busy: 'hashing' }, headers: { 'Retry-After': '1' } });
    while (releases.length) {
      releases.shift()!();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(await Promise.all(results.slice(0, 4))).toEqual([1, 2, 3, 4]);
    expect(order).toEqual([1, 2, 3, 4]);
    expect(peak).toBe(2);
    expect(limiter.stats).toEqual({ running: 0, waiting: 0 });
  });

  it('frees its slot when a task fails', async () => {
    const limiter = new WorkLimiter({ concurrency: 1, queue: 0, name: 'x' });
    await expect(limiter.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(limiter.run(async () => 'ok')).resolves.toBe('ok');
  });

  it('lets a waiting caller whose signal aborts leave the queue, and hands its turn to the next', async () => {
    const limiter = new WorkLimiter({ concurrency: 1, queue: 2, name: 'model' });
    let release!: () => void;
    const first = limiter.run(() => new Promise<string>((resolve) => (release = () => resolve('first'))));
    const controller = new AbortController();
    let abandonedRan = false;
    const abandoned = limiter
      .run(async () => {
        abandonedRan = true;
        return 'abandoned';
      }, controller.signal)
      .catch((error: unknown) => error);
    const next = limiter.run(async () => 'next');
    await new Promise((resolve) => setImmediate(resolve));
    expect(limiter.stats).toEqual({ running: 1, waiting: 2 });

    controller.abort(new Error('client went away'));
    expect(await abandoned).toMatchObject({ message: 'client went away' });
    expect(limiter.stats).toEqual({ running: 1, waiting: 1 });
    // The freed queue place can be taken again.
    const later = limiter.run(async () => 'later');
    expect(limiter.stats).toEqual({ running: 1, waiting: 2 });

    release();
    expect(await Promise.all([first, next, later])).toEqual(['first', 'next', 'later']);
    expect(abandonedRan).toBe(false);
    expect(limiter.stats).toEqual({ running: 0, waiting: 0 });
  });

  it('refuses a caller whose signal has already aborted when it would wait, and runs it when a slot is free', async () => {
    const limiter = new WorkLimiter({ concurrency: 1, queue: 1, name: 'model' });
    const aborted = AbortSignal.abort(new Error('gone'));
    await expect(limiter.run(async () => 'free slot', aborted)).resolves.toBe('free slot');
    let release!: () => void;
    const busy = limiter.run(() => new Promise<void>((resolve) => (release = resolve)));
    await expect(limiter.run(async () => 'never', aborted)).rejects.toThrow('gone');
    expect(limiter.stats).toEqual({ running: 1, waiting: 0 });
    release();
    await busy;
    expect(limiter.stats).toEqual({ running: 0, waiting: 0 });
  });
});
