import { createLogger } from '@platform/telemetry';
import { BufferFullError, IngestBuffer } from '../src/ingest/ingest-buffer';
import type { SpanRow } from '../src/ingest/span-rows';

const logger = createLogger('tracing-test', '0', 'silent');
const spans = (n: number) => Array.from({ length: n }, (_, i) => ({ spanId: String(i) }) as unknown as SpanRow);

/** A writer whose writes finish when the test says so. */
function gatedWriter() {
  const writes: Array<{ count: number; finish: (error?: Error) => void }> = [];
  const write = (rows: SpanRow[]) =>
    new Promise<void>((resolve, reject) => writes.push({ count: rows.length, finish: (error) => (error ? reject(error) : resolve()) }));
  return { writes, write };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('the group-commit buffer', () => {
  it('makes requests that arrive together, and those that arrive during a write, share one commit each', async () => {
    const { writes, write } = gatedWriter();
    const buffer = new IngestBuffer(write, { flushMs: 10_000, flushSpans: 1000, capacity: 1000, concurrency: 1 }, logger);
    const first = [buffer.submit({ spans: spans(3), embeddings: [] }), buffer.submit({ spans: spans(2), embeddings: [] })];
    await settle();
    expect(writes.map((w) => w.count)).toEqual([5]);
    // Arriving while the first batch is written: they wait for the next one.
    let secondDone = false;
    const second = [buffer.submit({ spans: spans(4), embeddings: [] }), buffer.submit({ spans: spans(1), embeddings: [] })];
    void Promise.all(second).then(() => (secondDone = true));
    expect(buffer.depth).toBe(10);
    writes[0].finish();
    await Promise.all(first);
    await settle();
    expect(secondDone).toBe(false);
    expect(writes.map((w) => w.count)).toEqual([5, 5]);
    writes[1].finish();
    await Promise.all(second);
    expect(buffer.depth).toBe(0);
    expect(buffer.committed).toBe(10);
  });

  it('refuses spans past its capacity and takes them again once written', async () => {
    const { writes, write } = gatedWriter();
    const buffer = new IngestBuffer(write, { flushMs: 10_000, flushSpans: 1000, capacity: 10, concurrency: 1 }, logger);
    const pending = buffer.submit({ spans: spans(8), embeddings: [] });
    expect(() => buffer.submit({ spans: spans(3), embeddings: [] })).toThrow(BufferFullError);
    await settle();
    writes[0].finish();
    await pending;
    const next = buffer.submit({ spans: spans(3), embeddings: [] });
    await settle();
    writes[1].finish();
    await expect(next).resolves.toBeUndefined();
  });

  it('fails every request of a batch the database refused, and keeps working', async () => {
    const { writes, write } = gatedWriter();
    const buffer = new IngestBuffer(write, { flushMs: 10_000, flushSpans: 1000, capacity: 100, concurrency: 1 }, logger);
    const batch = [buffer.submit({ spans: spans(1), embeddings: [] }), buffer.submit({ spans: spans(1), embeddings: [] })];
    await settle();
    writes[0].finish(new Error('database down'));
    for (const request of batch) await expect(request).rejects.toThrow('database down');
    expect(buffer.depth).toBe(0);
    const later = buffer.submit({ spans: spans(1), embeddings: [] });
    await settle();
    writes[1].finish();
    await expect(later).resolves.toBeUndefined();
  });

  it('flush() answers once everything submitted before it is written', async () => {
    const { writes, write } = gatedWriter();
    const buffer = new IngestBuffer(write, { flushMs: 10_000, flushSpans: 1000, capacity: 100, concurrency: 2 }, logger);
    void buffer.submit({ spans: spans(2), embeddings: [] });
    let flushed = false;
    const flush = buffer.flush().then(() => (flushed = true));
    await settle();
    expect(flushed).toBe(false);
    writes[0].finish();
    await flush;
    expect(buffer.depth).toBe(0);
  });
});
