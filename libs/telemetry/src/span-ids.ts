import { randomFillSync } from 'node:crypto';
import { endianness } from 'node:os';

/**
 * Trace and span ids as 32-bit words: a trace id is four words, a span id two, each word four bytes
 * of the id as the platform stores an Int32Array. A request's ids stay small integers until someone
 * asks for them as hex (an outgoing call's propagation, a log line) or the exporter writes their
 * bytes: no string is made for the many that never leave.
 */
export interface SpanIdWords {
  traceId0: number;
  traceId1: number;
  traceId2: number;
  traceId3: number;
  spanId0: number;
  spanId1: number;
}

/** Random words from a pool refilled from the system's CSPRNG, one call per few hundred spans. */
export const idPool = new Int32Array(4096);
/** The pool's bytes: the ids as bytes, where a sampler reads a new trace id. */
export const idPoolBytes = Buffer.from(idPool.buffer);
let next = idPool.length;

/** The index in idPool of `words` fresh random words, valid until the next draw. */
export function drawIdWords(words: number): number {
  if (next + words > idPool.length) {
    randomFillSync(idPool);
    next = 0;
  }
  next += words;
  return next - words;
}

const scratch = new Int32Array(4);
const scratchBytes = Buffer.from(scratch.buffer);

/** The hex of two words (a span id) or four (a trace id). */
export function hexOfWords(w0: number, w1: number, w2?: number, w3?: number): string {
  scratch[0] = w0;
  scratch[1] = w1;
  if (w2 === undefined) return scratchBytes.toString('hex', 0, 8);
  scratch[2] = w2;
  scratch[3] = w3!;
  return scratchBytes.toString('hex', 0, 16);
}

/** The words of a hex id (16 or 32 digits), in a view valid until the next call here. */
export function wordsOfHex(hex: string): Int32Array {
  scratchBytes.write(hex, 0, 'hex');
  return scratch;
}

/** A trace id and span id given in hex, as words. */
export function idWordsOfHex(traceId: string, spanId: string): SpanIdWords {
  const [traceId0, traceId1, traceId2, traceId3] = wordsOfHex(traceId);
  const [spanId0, spanId1] = wordsOfHex(spanId);
  return { traceId0: traceId0!, traceId1: traceId1!, traceId2: traceId2!, traceId3: traceId3!, spanId0: spanId0!, spanId1: spanId1! };
}

/** Whether a word's bytes are stored little-endian: the order in which the exporter writes them out. */
export const LITTLE_ENDIAN_WORDS = endianness() === 'LE';
