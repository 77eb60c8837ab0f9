import type { Logger } from '@platform/telemetry';
import type { ConvertedBatch, EmbeddingRow, SpanRow } from './span-rows';

export interface BufferOptions {
  /** Flush at least this often (ms) while spans wait. */
  flushMs: number;
  /** Flush at once when this many spans wait. */
  flushSpans: number;
  /** Most spans waiting or being written; past it `submit` refuses (503). */
  capacity: number;
  /** Flushes allowed to write at the same time. */
  concurrency: number;
}

export class BufferFullError extends Error {
  override name = 'BufferFullError';
}

interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
}

interface Pending {
  spans: SpanRow[];
  embeddings: EmbeddingRow[];
  waiters: Waiter[];
}

const empty = (): Pending => ({ spans: [], embeddings: [], waiters: [] });

/**
 * Group commit: every request's spans join the next batch, and the request's promise settles
 * when that batch is committed (or fails). A batch is written as soon as a writer is free (up to
 * `concurrency` at once), at the latest every `flushMs`, and at once when `flushSpans` wait;
 * memory is bounded by `capacity` spans (waiting plus being written).
 */
export class IngestBuffer {
  private pending: Pending = empty();
  private inFlight = 0;
  private inFlightSpans = 0;
  private timer: NodeJS.Timeout | undefined;
  private immediate: NodeJS.Immediate | undefined;
  private readonly flushes = new Set<Promise<void>>();
  private closed = false;
  /** Spans committed since start (for the ingest rate). */
  committed = 0;
  private readonly window: Array<{ at: number; spans: number }> = [];

  constructor(
    private readonly write: (spans: SpanRow[], embeddings: EmbeddingRow[]) => Promise<void>,
    private readonly options: BufferOptions,
    private readonly logger: Logger,
  ) {}

  /** Spans waiting or being written. */
  get depth(): number {
    return this.pending.spans.length + this.inFlightSpans;
  }

  get capacity(): number {
    return this.options.capacity;
  }

  /** Spans committed per second over the last minute. */
  rate(now = Date.now()): number {
    while (this.window.length > 0 && this.window[0].at < now - 60_000) this.window.shift();
    const total = this.window.reduce((sum, entry) => sum + entry.spans, 0);
    return total / 60;
  }

  /** Resolves once the batch's spans are committed. Throws BufferFullError at capacity. */
  submit(batch: Pick<ConvertedBatch, 'spans' | 'embeddings'>): Promise<void> {
    if (batch.spans.length === 0) return Promise.resolve();
    if (this.closed) return Promise.reject(new BufferFullError('The service is shutting down'));
    if (this.depth + batch.spans.length > this.options.capacity) throw new BufferFullError('The ingest buffer is full');
    const done = new Promise<void>((resolve, reject) => this.pending.waiters.push({ resolve, reject }));
    for (const span of batch.spans) this.pending.spans.push(span);
    for (const embedding of batch.embeddings) this.pending.embeddings.push(embedding);
    if (this.pending.spans.length >= this.options.flushSpans) this.kick();
    else if (this.inFlight === 0) this.kickSoon();
    else this.timer ??= setTimeout(() => this.kick(), this.options.flushMs);
    return done;
  }

  /**
   * Nothing is being written: flush after the current turn of the event loop, so the requests
   * that arrived together share a commit and a lone request does not wait for the timer.
   */
  private kickSoon(): void {
    if (this.immediate) return;
    this.immediate = setImmediate(() => {
      this.immediate = undefined;
      this.kick();
    });
  }

  /** Starts a flush when one may run; the rest wait for the next timer or the running flush's end. */
  private kick(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.pending.spans.length === 0) return;
    if (this.inFlight >= this.options.concurrency) return; // the running flush kicks again when done
    const batch = this.pending;
    this.pending = empty();
    this.inFlight++;
    this.inFlightSpans += batch.spans.length;
    const done = () => {
      // Counted out before the requests are answered: an answered request's spans no longer take room.
      this.inFlight--;
      this.inFlightSpans -= batch.spans.length;
    };
    const flush = this.write(batch.spans, batch.embeddings).then(
      () => {
        done();
        this.committed += batch.spans.length;
        this.window.push({ at: Date.now(), spans: batch.spans.length });
        for (const waiter of batch.waiters) waiter.resolve();
      },
      (error: unknown) => {
        done();
        this.logger.error({ err: error, spans: batch.spans.length }, 'span batch not committed');
        for (const waiter of batch.waiters) waiter.reject(error);
      },
    );
    const tracked = flush.finally(() => {
      this.flushes.delete(tracked);
      // What arrived while this batch was written goes next, at once: under load the batches
      // grow by themselves and the database is never idle while spans wait.
      if (this.pending.spans.length > 0) this.kick();
    });
    this.flushes.add(tracked);
  }

  /** Writes everything buffered now; resolves when every span submitted before the call is committed. */
  async flush(): Promise<number> {
    const before = this.depth;
    while (this.pending.spans.length > 0 || this.flushes.size > 0) {
      this.kick();
      await Promise.allSettled([...this.flushes]);
    }
    return before;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
  }
}
