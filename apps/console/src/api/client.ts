import { PlatformError, platformErrorFrom } from './errors';
import type { SessionStore } from './session';

/** The services the console reaches, by their app names: the gateway itself, the rest through it. */
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

type Query = Record<string, string | number | boolean | undefined>;

/**
 * Where a service's own path is reached from the browser: the gateway's at the same origin, every
 * other service through the gateway's pass-through `/api/v1/platform/<service><path>`.
 */
export function platformUrl(service: ServiceName, path: string, query?: Query): string {
  const own = path.startsWith('/') ? path : `/${path}`;
  const url = service === 'gateway' ? own : `/api/v1/platform/${service}${own}`;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) if (value !== undefined) params.set(key, String(value));
  const search = params.toString();
  return search ? `${url}${url.includes('?') ? '&' : '?'}${search}` : url;
}

export interface ApiRequest extends Omit<RequestInit, 'body'> {
  /** A JSON body (sent with `content-type: application/json`). */
  json?: unknown;
  body?: BodyInit;
  query?: Query;
}

/** The parsed JSON (or text) of a successful answer; a PlatformError for any other. */
export type ApiFetch = <T = unknown>(service: ServiceName, path: string, init?: ApiRequest) => Promise<T>;
/** The answer itself, whatever its status (streams, health bodies of a 503); throws only when unreachable. */
export type ApiSend = (service: ServiceName, path: string, init?: ApiRequest) => Promise<Response>;

/** Calls with the session's bearer token; on a 401 the session is refreshed once and the call retried. */
export function createApiSend(session: SessionStore, fetchImpl: typeof fetch = (...args) => fetch(...args)): ApiSend {
  return async (service, path, init = {}) => {
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
    try {
      const response = await send(session.accessToken);
      if (response.status !== 401 || !(await session.refresh())) return response;
      return await send(session.accessToken);
    } catch (error) {
      if ((error as Error).name === 'AbortError') throw error;
      throw new PlatformError(0, 'network_error', `The gateway cannot be reached (${(error as Error).message})`);
    }
  };
}

export function createApiFetch(send: ApiSend): ApiFetch {
  return async function apiFetch<T>(service: ServiceName, path: string, init?: ApiRequest): Promise<T> {
    const response = await send(service, path, init);
    if (response.status === 204) return undefined as T;
    const text = await response.text();
    if (!response.ok) throw platformErrorFrom(response.status, text);
    if (!text) return undefined as T;
    const type = response.headers.get('content-type') ?? '';
    return (type.includes('json') ? JSON.parse(text) : text) as T;
  };
}
