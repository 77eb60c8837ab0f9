import { ApiError, serviceUnavailable } from '@platform/http';
import { currentRequestId } from '@platform/telemetry';

/**
 * Failures of the platform services the master composes (registry, workers), as DESIGN.md asks:
 * unreachable or too slow is a 503 naming the dependency, a 5xx answer a 502, and the caller's own
 * 4xx (bad input, missing permission on the other service) is passed on with its body.
 *
 * Until `@platform/clients` lands, each dependency sits behind one small interface
 * (`RegistryApi`, `WorkersApi`); their HTTP implementations are the only code that calls out.
 */
export interface UpstreamAnswer {
  status: number;
  body: unknown;
}

export async function callService(
  dependency: string,
  url: string,
  init: { method?: string; authorization?: string; body?: unknown; timeoutMs: number },
): Promise<UpstreamAnswer> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: init.method ?? 'GET',
      headers: {
        accept: 'application/json',
        ...(init.body !== undefined && { 'content-type': 'application/json' }),
        ...(init.authorization && { authorization: init.authorization }),
        ...requestIdHeader(),
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: AbortSignal.timeout(init.timeoutMs),
      redirect: 'error',
    });
  } catch (error) {
    const reason = (error as Error).name === 'TimeoutError' ? 'timeout' : 'unreachable';
    throw serviceUnavailable(`The ${dependency} service is ${reason === 'timeout' ? 'not answering' : 'unreachable'}`, { dependency, reason });
  }
  const text = await response.text();
  let body: unknown = undefined;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  if (response.status >= 500) {
    throw new ApiError(502, 'api_error', 'upstream_error', `The ${dependency} service failed (${response.status})`, { dependency, status: response.status });
  }
  return { status: response.status, body };
}

/** A 4xx of the other service the caller must see: 401/403 as 403 (our token was fine), others as is. */
export function passOn(dependency: string, answer: UpstreamAnswer): ApiError {
  const error = (answer.body as { error?: { type?: string; code?: string; message?: string; details?: unknown } } | undefined)?.error;
  const message = `${dependency}: ${error?.message ?? `answered ${answer.status}`}`;
  if (answer.status === 401 || answer.status === 403) {
    return new ApiError(403, 'authorization_error', 'insufficient_permissions', message, { dependency, status: answer.status, upstream: error?.details });
  }
  const type = answer.status === 404 ? 'not_found_error' : answer.status === 409 ? 'conflict_error' : 'validation_error';
  const code = answer.status === 404 ? 'not_found' : answer.status === 409 ? 'conflict' : (error?.code ?? 'invalid_request');
  return new ApiError(answer.status >= 400 && answer.status < 500 ? answer.status : 502, type, code, message, { dependency, upstream: error?.details });
}

function requestIdHeader(): Record<string, string> {
  const id = currentRequestId();
  return id ? { 'x-request-id': id } : {};
}
