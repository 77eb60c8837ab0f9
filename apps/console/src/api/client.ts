import { PlatformError, platformErrorFrom } from './errors';
import type { SessionStore } from './session';

/** The services behind the gateway's pass-through, by their app names. */
export const SERVICES = [
  'gateway',
  'auth',
  'registry',
  'master',
  'mesh',
  'workers',
  'workflow-engine',
  'tracing',
  'mcp-registry',
  'local-models',
] as const;
export type ServiceName = (typeof SERVICES)[number];

/** `/api/v1/platform/<service><path>`: how the gateway passes a console call on to a service. */
export function platformUrl(service: ServiceName, path: string, query?: Record<string, string | number | boolean | undefined>): string {
  const url = `/api/v1/platform/${service}${path.startsWith('/') ? path : `/${path}`}`;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) if (value !== undefined) params.set(key, String(value));
  const search = params.toString();
  return search ? `${url}${url.includes('?') ? '&' : '?'}${search}` : url;
}

export interface ApiRequest extends Omit<RequestInit, 'body'> {
  /** A JSON body (sent with `content-type: application/json`). */
  json?: unknown;
  body?: BodyInit;
  query?: Record<string, string | number | boolean | undefined>;
}

export type ApiFetch = <T = unknown>(service: ServiceName, path: string, init?: ApiRequest) => Promise<T>;

/**
 * A fetch of the platform's services with the session's bearer token: on a 401 it refreshes the
 * session once and retries; any other failure throws a PlatformError parsed from the error shape.
 */
export function createApiFetch(session: SessionStore, fetchImpl: typeof fetch = (...args) => fetch(...args)): ApiFetch {
  return async function apiFetch<T>(service: ServiceName, path: string, init: ApiRequest = {}): Promise<T> {
    const { json, query, headers, ...rest } = init;
    const send = (token: string | undefined) => {
      const h = new Headers(headers);
      if (token) h.set('authorization', `Bearer ${token}`);
      if (json !== undefined) h.set('content-type', 'application/json');
      if (!h.has('accept')) h.set('accept', 'application/json');
      return fetchImpl(platformUrl(service, path, query), {
        ...rest,
        headers: h,
        credentials: 'same-origin',
        body: json !== undefined ? JSON.stringify(json) : rest.body,
      });
    };
    let response: Response;
    try {
      response = await send(session.accessToken);
      if (response.status === 401 && (await session.refresh())) response = await send(session.accessToken);
    } catch (error) {
      throw new PlatformError(0, 'network_error', `The gateway cannot be reached (${(error as Error).message})`);
    }
    if (response.status === 204) return undefined as T;
    const text = await response.text();
    if (!response.ok) throw platformErrorFrom(response.status, text);
    if (!text) return undefined as T;
    const type = response.headers.get('content-type') ?? '';
    return (type.includes('json') ? JSON.parse(text) : text) as T;
  };
}
