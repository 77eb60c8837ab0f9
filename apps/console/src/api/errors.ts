import { PlatformError } from '@platform/sdk';

export { PlatformError };

/** The error of a failed answer whose body was read as text: the error shape when it is one. */
export function platformErrorFrom(status: number, bodyText: string, headers?: Headers): PlatformError {
  let body: unknown = bodyText;
  try {
    body = bodyText ? JSON.parse(bodyText) : undefined;
  } catch {
    // Not JSON (a proxy's HTML page): kept as text.
  }
  return PlatformError.fromBody(status, body, headers);
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
