import type { ErrorType } from '@platform/contracts';

/** An error with an HTTP status and a stable code; the error handler turns it into the body. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: ErrorType,
    readonly code: string,
    message: string,
    readonly details?: unknown,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const badRequest = (message: string, details?: unknown, code = 'invalid_request') => new ApiError(400, 'validation_error', code, message, details);
export const unauthorized = (message: string, details?: unknown, code = 'invalid_token') => new ApiError(401, 'authentication_error', code, message, details);
export const forbidden = (message: string, details?: unknown, code = 'insufficient_permissions') =>
  new ApiError(403, 'authorization_error', code, message, details);
export const notFound = (message: string, details?: unknown) => new ApiError(404, 'not_found_error', 'not_found', message, details);
export const conflict = (message: string, details?: unknown) => new ApiError(409, 'conflict_error', 'conflict', message, details);
export const payloadTooLarge = (message: string) => new ApiError(413, 'validation_error', 'payload_too_large', message);
export const tooManyRequests = (message: string, retryAfterSeconds: number) =>
  new ApiError(
    429,
    'rate_limit_error',
    'rate_limited',
    message,
    { retryAfter: retryAfterSeconds },
    {
      'Retry-After': String(retryAfterSeconds),
    },
  );
export const serviceUnavailable = (message: string, details?: unknown) => new ApiError(503, 'api_error', 'service_unavailable', message, details);
