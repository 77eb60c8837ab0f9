/** DESIGN.md's error body: `{"error": {"type", "code", "message", "details"?}, "requestId"}`. */
interface ErrorBody {
  error: { type?: string; code?: string; message?: string; details?: unknown };
  requestId?: string;
}

function isErrorBody(value: unknown): value is ErrorBody {
  return !!value && typeof value === 'object' && !!(value as ErrorBody).error && typeof (value as ErrorBody).error === 'object';
}

/** An answer of the platform that is not a success, or a platform that could not be reached. */
export class PlatformError extends Error {
  override readonly name = 'PlatformError';
  constructor(
    /** The HTTP status; 0 when no answer came (network error, refused connection). */
    readonly status: number,
    /** The error's stable code (`invalid_request`, `not_found`, …); `network_error` without an answer. */
    readonly code: string,
    message: string,
    readonly details?: unknown,
    readonly requestId?: string,
    /** The error's type (`validation_error`, …) when the body said. */
    readonly type?: string,
  ) {
    super(message);
  }

  /** From a response's status and its (parsed, or text) body, in the platform's error shape or not. */
  static fromBody(status: number, body: unknown, headers?: Headers): PlatformError {
    const requestId = headers?.get('x-request-id') ?? undefined;
    if (isErrorBody(body)) {
      const { type, code, message, details } = body.error;
      return new PlatformError(status, code ?? `http_${status}`, message ?? `HTTP ${status}`, details, body.requestId ?? requestId, type);
    }
    const text = typeof body === 'string' ? body.trim().slice(0, 500) : body === undefined ? '' : JSON.stringify(body).slice(0, 500);
    return new PlatformError(status, `http_${status}`, text || `HTTP ${status}`, undefined, requestId);
  }

  /** A request that got no answer. */
  static network(cause: unknown, url?: string): PlatformError {
    const reason = cause instanceof Error ? ((cause.cause as Error | undefined)?.message ?? cause.message) : String(cause);
    const error = new PlatformError(0, 'network_error', `${url ? `${url}: ` : ''}${reason}`);
    (error as { cause?: unknown }).cause = cause;
    return error;
  }
}

/** What every openapi-fetch call resolves to. */
export interface FetchResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/**
 * The data of a successful call, or a thrown `PlatformError` parsed from the error body.
 * Accepts the call's promise too: `await unwrap(platform.registry.GET(...))`; a call that got no
 * answer rejects with a `PlatformError` of status 0, `network_error`.
 */
export function unwrap<T>(result: FetchResult<T>): T;
export function unwrap<T>(result: Promise<FetchResult<T>>): Promise<T>;
export function unwrap<T>(result: FetchResult<T> | Promise<FetchResult<T>>): T | Promise<T> {
  if (result instanceof Promise) {
    return result.then(
      (settled) => unwrap(settled),
      (error: unknown) => {
        throw error instanceof PlatformError ? error : PlatformError.network(error);
      },
    );
  }
  if (result.response.ok) return result.data as T;
  throw PlatformError.fromBody(result.response.status, result.error, result.response.headers);
}
