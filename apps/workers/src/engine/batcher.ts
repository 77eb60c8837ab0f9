/**
 * Group commit: calls made while earlier batches are in flight are gathered and sent as one batch
 * (one SQL statement for many steps instead of one each). At most `maxInFlight` batches run at
 * once, each of at most `maxBatch` items. A failed batch of several items is tried again item by
 * item, so that one bad item (or a deadlock between two batches) fails only its own call.
 */
export class Batcher<I, O> {
  private pending: Array<{ item: I; resolve: (value: O) => void; reject: (error: unknown) => void }> = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(
    private readonly run: (items: I[]) => Promise<O[]>,
    private readonly options: { maxBatch: number; maxInFlight: number },
  ) {}

  push(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.pending.length === 0 || this.inFlight >= this.options.maxInFlight) return;
    this.scheduled = true;
    // After the I/O callbacks of this turn of the event loop: everything they pushed goes together.
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    while (this.pending.length > 0 && this.inFlight < this.options.maxInFlight) {
      const batch = this.pending.splice(0, this.options.maxBatch);
      this.inFlight++;
      this.settle(batch)
        .catch(() => undefined)
        .finally(() => {
          this.inFlight--;
          this.schedule();
        });
    }
  }

  private async settle(batch: Array<{ item: I; resolve: (value: O) => void; reject: (error: unknown) => void }>): Promise<void> {
    try {
      const results = await this.run(batch.map((entry) => entry.item));
      batch.forEach((entry, i) => entry.resolve(results[i]!));
    } catch (error) {
      if (batch.length === 1) return batch[0]!.reject(error);
      for (const entry of batch) {
        try {
          entry.resolve((await this.run([entry.item]))[0]!);
        } catch (single) {
          entry.reject(single);
        }
      }
    }
  }
}
