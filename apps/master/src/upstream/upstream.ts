import { UpstreamError } from '@platform/clients';
import { ApiError, serviceUnavailable } from '@platform/http';

/**
 * How failures of the services the master composes (registry, workers) reach the master's caller
 * (DESIGN.md, "Services calling services"): unreachable or too slow is a 503 naming the
 * dependency; a refusal of the caller's forwarded token (401/403 there) a 403; bad input there a
 * 400 with its details; anything else a 502.
 */
export function fromUpstream(error: unknown): unknown {
  if (!(error instanceof UpstreamError)) return error;
  const dependency = error.service;
  if (error.reason === 'network' || error.reason === 'timeout') return serviceUnavailable(error.message, { dependency, reason: error.reason });
  const details = (error.upstreamBody as { error?: { details?: unknown; code?: string } } | undefined)?.error;
  if (error.upstreamStatus === 401 || error.upstreamStatus === 403) {
    return new ApiError(403, 'authorization_error', 'insufficient_permissions', error.message, {
      dependency,
      status: error.upstreamStatus,
      upstream: details?.details,
    });
  }
  if (error.upstreamStatus === 400)
    return new ApiError(400, 'validation_error', details?.code ?? 'invalid_request', error.message, { dependency, upstream: details?.details });
  return error;
}

/** Runs a call to a dependency, translating its failure. */
export async function upstream<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw fromUpstream(error);
  }
}

/** `Bearer <token>` → the token, as the clients forward it. */
export const bearerOf = (authorization: string | undefined): string | undefined => authorization?.replace(/^Bearer\s+/i, '') || undefined;

/** Whether a service's health endpoint answers 2xx within its timeout. */
export async function probe(url: string, timeoutMs: number): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(Math.min(timeoutMs, 2000)) });
    await response.arrayBuffer();
    return response.ok;
  } catch {
    return false;
  }
}
