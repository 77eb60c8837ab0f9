import { PlatformError } from './errors';

/** Where the caller's bearer token comes from; called before every request (it may renew it). */
export type TokenSource = () => string | undefined | Promise<string | undefined>;

export interface Credentials {
  token?: TokenSource;
  /** A service API key, sent as `X-API-Key` (the gateway exchanges it at auth) when there is no token. */
  apiKey?: string;
  /** Called on a 401: renew the credentials and answer true to have the request sent once more. */
  onUnauthorized?: () => Promise<boolean>;
}

export type FetchFunction = (input: Request, init?: RequestInit) => Promise<Response>;

/** The headers that carry the caller's credentials, unless the request brings its own. */
export async function credentialHeaders(credentials: Credentials): Promise<Record<string, string>> {
  const token = await credentials.token?.();
  if (token) return { authorization: `Bearer ${token}` };
  if (credentials.apiKey) return { 'x-api-key': credentials.apiKey };
  return {};
}

async function withCredentials(request: Request, credentials: Credentials): Promise<Request> {
  if (request.headers.has('authorization') || request.headers.has('x-api-key')) return request;
  for (const [name, value] of Object.entries(await credentialHeaders(credentials))) request.headers.set(name, value);
  return request;
}

/**
 * A fetch that adds the caller's credentials, turns "no answer" into a `PlatformError` of status 0,
 * and on a 401 asks `onUnauthorized` to renew the credentials, then sends the request once more.
 */
export function authenticatedFetch(credentials: Credentials, base: FetchFunction = (input, init) => globalThis.fetch(input, init)): FetchFunction {
  const send = async (request: Request, init?: RequestInit) => {
    try {
      return await base(request, init);
    } catch (error) {
      if (error instanceof PlatformError || (error as Error)?.name === 'AbortError') throw error;
      throw PlatformError.network(error, `${request.method} ${request.url}`);
    }
  };
  return async (input, init) => {
    const hadCredentials = input.headers.has('authorization') || input.headers.has('x-api-key');
    // Kept before the body is sent, for the one retry after a renewal.
    const retry = credentials.onUnauthorized && !hadCredentials ? input.clone() : undefined;
    const response = await send(await withCredentials(input, credentials), init);
    if (response.status !== 401 || !retry || !(await credentials.onUnauthorized!())) return response;
    await response.body?.cancel();
    return send(await withCredentials(retry, credentials), init);
  };
}
