import { authenticatedFetch, serviceBaseUrl, SERVICE_SLUGS, type ServiceName as SdkServiceName } from '@platform/sdk';
import { platformErrorFrom } from './errors';
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

/** The SDK's name of a service (`workflowEngine` for `workflow-engine`). */
export const sdkName = (service: ServiceName): SdkServiceName =>
  (Object.keys(SERVICE_SLUGS) as SdkServiceName[]).find((name) => SERVICE_SLUGS[name] === service)!;

type Query = Record<string, string | number | boolean | undefined>;

/**
 * Where a service's own path is reached from the browser: the gateway's at the same origin, every
 * other service through the gateway's pass-through `/api/v1/platform/<service><path>`.
 */
export function platformUrl(service: ServiceName, path: string, query?: Query): string {
  const own = path.startsWith('/') ? path : `/${path}`;
  const url = `${serviceBaseUrl(sdkName(service), '')}${own}`;
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

export interface ApiSendOptions {
  /** The gateway's origin; the page's own in a browser. */
  origin?: string;
  fetch?: (request: Request, init?: RequestInit) => Promise<Response>;
}

/**
 * Calls with the session's bearer token through the SDK's authenticated fetch: on a 401 the session
 * is refreshed once and the call retried; no answer at all is a PlatformError of status 0.
 */
export function createApiSend(session: SessionStore, options: ApiSendOptions = {}): ApiSend {
  const origin = options.origin ?? globalThis.location?.origin ?? 'http://127.0.0.1';
  const fetchWithSession = authenticatedFetch({ token: () => session.accessToken, onUnauthorized: () => session.refresh() }, options.fetch);
  return (service, path, init = {}) => {
    const { json, query, headers, ...rest } = init;
    const h = new Headers(headers);
    if (json !== undefined) h.set('content-type', 'application/json');
    if (!h.has('accept')) h.set('accept', 'application/json');
    const request = new Request(new URL(platformUrl(service, path, query), origin), {
      ...rest,
      headers: h,
      credentials: 'same-origin',
      body: json !== undefined ? JSON.stringify(json) : rest.body,
    });
    return fetchWithSession(request);
  };
}

export function createApiFetch(send: ApiSend): ApiFetch {
  return async function apiFetch<T>(service: ServiceName, path: string, init?: ApiRequest): Promise<T> {
    const response = await send(service, path, init);
    if (response.status === 204) return undefined as T;
    const text = await response.text();
    if (!response.ok) throw platformErrorFrom(response.status, text, response.headers);
    if (!text) return undefined as T;
    const type = response.headers.get('content-type') ?? '';
    return (type.includes('json') ? JSON.parse(text) : text) as T;
  };
}
