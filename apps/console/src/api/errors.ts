import { ErrorBody } from '@platform/contracts';

/** A refusal or failure of the platform's API, parsed from DESIGN.md's error shape. */
export class PlatformError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
    readonly requestId?: string,
  ) {
    super(message);
    this.name = 'PlatformError';
  }
}

/** Builds the error of a failed response from its body (text already read), whatever it holds. */
export function platformErrorFrom(status: number, bodyText: string): PlatformError {
  let json: unknown;
  try {
    json = bodyText ? JSON.parse(bodyText) : undefined;
  } catch {
    json = undefined;
  }
  const parsed = ErrorBody.safeParse(json);
  if (parsed.success) {
    const { code, message, details } = parsed.data.error;
    return new PlatformError(status, code, message, details, parsed.data.requestId);
  }
  const fallback = status === 0 ? 'The platform cannot be reached' : `The platform answered ${status}`;
  return new PlatformError(status, status === 0 ? 'network_error' : 'unexpected_response', bodyText.trim().slice(0, 200) || fallback);
}

/** The sentence a person reads for an error: "Not permitted: …" for a 403, and so on. */
export function describeError(error: unknown): { title: string; message: string; status?: number; code?: string } {
  if (error instanceof PlatformError) {
    const title =
      error.status === 403
        ? 'Not permitted'
        : error.status === 401
          ? 'Not signed in'
          : error.status === 404
            ? 'Not found'
            : error.status === 0
              ? 'Unreachable'
              : error.status >= 500
                ? 'The platform failed'
                : 'Refused';
    return { title, message: error.message, status: error.status, code: error.code };
  }
  return { title: 'Error', message: error instanceof Error ? error.message : String(error) };
}
