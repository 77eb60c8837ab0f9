/**
 * The one function through which every step reaches a user-supplied URL (http and agent steps).
 * http(s) only, no redirects followed, a timeout through the caller's AbortSignal and a cap on
 * the bytes read of the response body.
 */
export interface OutboundOptions {
  maxBytes: number;
  signal: AbortSignal;
}

export interface OutboundResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  truncated: boolean;
}

export class OutboundError extends Error {
  override name = 'OutboundError';
}

export async function outboundRequest(url: string, init: { method: string; headers: Record<string, string>; body?: string }, options: OutboundOptions): Promise<OutboundResponse> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new OutboundError(`invalid URL: ${url.slice(0, 200)}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new OutboundError(`only http(s) URLs are allowed, got ${parsed.protocol}`);
  const response = await fetch(parsed, { method: init.method, headers: init.headers, body: init.body, redirect: 'manual', signal: options.signal });
  const { text, truncated } = await readCapped(response, options.maxBytes);
  const headers: Record<string, string> = {};
  response.headers.forEach((value, key) => (headers[key] = value));
  let body: unknown = text;
  if (!truncated && /\bjson\b/i.test(headers['content-type'] ?? '') && text.length > 0) {
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  }
  return { status: response.status, headers, body, truncated };
}

async function readCapped(response: Response, maxBytes: number): Promise<{ text: string; truncated: boolean }> {
  if (!response.body) return { text: '', truncated: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.byteLength > maxBytes) {
      chunks.push(value.subarray(0, maxBytes - size));
      size = maxBytes;
      truncated = true;
      await reader.cancel().catch(() => undefined);
      break;
    }
    chunks.push(value);
    size += value.byteLength;
  }
  return { text: Buffer.concat(chunks).toString('utf8'), truncated };
}
