import { guardedFetch, OutboundError } from '@platform/http';
import { StepFailure } from './step-context';

/**
 * The one function through which every step reaches a user-supplied URL (http and agent steps):
 * `guardedFetch` of `@platform/http` (http(s) only, same-host redirects only, no private address
 * unless WORKERS_ALLOW_PRIVATE_URLS, a timeout and a response-size cap). The caller's signal
 * aborts it on timeout, cancel or a lost lease.
 */
export interface OutboundOptions {
  maxBytes: number;
  timeoutMs: number;
  allowPrivate: boolean;
  signal: AbortSignal;
}

export interface OutboundResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

export async function outboundRequest(
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string },
  options: OutboundOptions,
): Promise<OutboundResponse> {
  let response;
  try {
    response = await guardedFetch(
      url,
      { method: init.method, headers: init.headers, body: init.body, signal: options.signal },
      {
        timeoutMs: options.timeoutMs,
        maxBytes: options.maxBytes,
        allowPrivate: options.allowPrivate,
      },
    );
  } catch (error) {
    if (options.signal.aborted) throw options.signal.reason;
    if (error instanceof OutboundError) {
      // A URL that may not be called, or an answer over the cap, does not change on a retry.
      const retryable = error.reason === 'network' || error.reason === 'timeout';
      throw new StepFailure(`${error.reason}: ${error.message}`, undefined, retryable);
    }
    throw error;
  }
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(response.headers)) if (value !== undefined) headers[key] = Array.isArray(value) ? value.join(', ') : value;
  const text = response.text();
  let body: unknown = text;
  if (/\bjson\b/i.test(headers['content-type'] ?? '') && text.length > 0) {
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  }
  return { status: response.status, headers, body };
}
