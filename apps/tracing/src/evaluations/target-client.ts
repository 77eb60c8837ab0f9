import { guardedFetch, OutboundError } from '@platform/http';
import type { tracing } from '@platform/contracts';
import type { z } from 'zod';

export interface TargetAnswer {
  output: unknown;
  latencyMs: number;
}

export class TargetError extends Error {
  override name = 'TargetError';
  constructor(
    message: string,
    /** A failure that cannot succeed on retry (the URL is refused). */
    readonly permanent = false,
  ) {
    super(message);
  }
}

const MAX_RESPONSE_BYTES = 1024 * 1024;

function pick(body: unknown, path: string | undefined): unknown {
  if (!path) {
    if (body && typeof body === 'object' && !Array.isArray(body) && 'output' in body) return (body as Record<string, unknown>).output;
    return body;
  }
  return path.split('.').reduce<unknown>((value, key) => (value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined), body);
}

/**
 * The one outbound call of the evaluations: sends an example's input to the user's target through
 * the platform's guard (http(s) only, timeout, size cap, no private addresses unless allowed),
 * carrying the evaluation span's trace context so the target's own spans join the trace.
 */
export async function callTarget(
  target: z.infer<typeof tracing.EvaluationTarget>,
  input: unknown,
  traceparent: string,
  allowPrivate: boolean,
): Promise<TargetAnswer> {
  const started = performance.now();
  let response;
  try {
    response = await guardedFetch(
      target.url,
      {
        method: target.method,
        headers: { ...target.headers, 'content-type': 'application/json', traceparent },
        body: JSON.stringify({ input }),
      },
      { timeoutMs: target.timeout_ms, maxBytes: MAX_RESPONSE_BYTES, allowPrivate },
    );
  } catch (error) {
    if (error instanceof OutboundError) throw new TargetError(`target ${new URL(target.url).host}: ${error.message}`, error.status === 400);
    throw new TargetError(`target ${new URL(target.url).host}: ${(error as Error).message}`);
  }
  const latencyMs = performance.now() - started;
  if (response.status < 200 || response.status >= 300) throw new TargetError(`target answered ${response.status}`);
  const type = String(response.headers['content-type'] ?? '');
  let body: unknown = response.text();
  if (type.includes('json')) {
    try {
      body = response.json();
    } catch {
      throw new TargetError('target answered invalid JSON');
    }
  }
  return { output: pick(body, target.output_path), latencyMs };
}
