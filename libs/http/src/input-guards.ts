import { ApiError } from './errors';

/** JSON nested deeper than this is refused before it is parsed. */
export const MAX_JSON_DEPTH = 64;

const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * A `verify` hook for express.json: one pass over the raw bytes that refuses nesting deeper than
 * `maxDepth` (400) before JSON.parse builds it, so no deep structure reaches the handlers, zod
 * or Postgres.
 */
export function jsonDepthVerifier(maxDepth = MAX_JSON_DEPTH) {
  return (_req: unknown, _res: unknown, body: Buffer): void => {
    let depth = 0;
    let inString = false;
    for (let i = 0; i < body.length; i++) {
      const byte = body[i];
      if (inString) {
        if (byte === BACKSLASH) i++;
        else if (byte === QUOTE) inString = false;
      } else if (byte === QUOTE) inString = true;
      else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
        if (++depth > maxDepth) throw new ApiError(400, 'validation_error', 'invalid_request', `The request body is nested deeper than ${maxDepth} levels`);
      } else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) depth--;
    }
  };
}

// A NUL, or a UTF-16 surrogate without its pair: Postgres stores neither in text or jsonb.
// eslint-disable-next-line no-control-regex -- finding NUL is the point
const UNSAFE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The path of the first string (or key) holding a NUL or an unpaired surrogate, if any. */
export function findUnsafeString(value: unknown, path: string, depth = 0): string | undefined {
  if (typeof value === 'string') return UNSAFE.test(value) ? path : undefined;
  // Raw bodies (Buffers) are the route's own to read.
  if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value) || depth > MAX_JSON_DEPTH) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findUnsafeString(value[i], `${path}.${i}`, depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  for (const [key, item] of Object.entries(value)) {
    if (UNSAFE.test(key)) return `${path}.${key.replace(UNSAFE, '?')}`;
    const found = findUnsafeString(item, `${path}.${key}`, depth + 1);
    if (found) return found;
  }
  return undefined;
}
