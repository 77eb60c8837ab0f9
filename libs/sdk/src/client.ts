import createClient, { type Client } from 'openapi-fetch';
import { authenticatedFetch, credentialHeaders, type Credentials, type FetchFunction, type TokenSource } from './authenticated-fetch';
import { serviceBaseUrl, SERVICE_NAMES, type ServiceName, type ServicePaths } from './services';

export interface PlatformClientOptions {
  /** The gateway's origin, e.g. `http://127.0.0.1:3002` (or `''` in a browser on the gateway's origin). */
  baseUrl: string;
  /** The caller's bearer token, asked for before each request. */
  token?: TokenSource;
  /** A service API key sent as `X-API-Key` when there is no token (the gateway exchanges it). */
  apiKey?: string;
  /** Called on a 401: refresh the token and answer true to retry the request once. */
  onUnauthorized?: () => Promise<boolean>;
  /** Another fetch (tests, instrumentation); `globalThis.fetch` by default. */
  fetch?: FetchFunction;
  /** A service's own URL instead of the gateway's pass-through (tests, use without the gateway). */
  direct?: Partial<Record<ServiceName, string>>;
  /** The WebSocket class for streams; the browser's (or Node 22's) global one by default. */
  WebSocket?: WebSocketConstructor;
}

/** The part of the WebSocket API streams use: the browser's class and the `ws` package both fit. */
export interface WebSocketLike {
  readonly readyState: number;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
  close(code?: number, reason?: string): void;
}
export type WebSocketConstructor = new (url: string, protocols?: string | string[]) => WebSocketLike;

export type ServiceClients = { readonly [K in ServiceName]: Client<ServicePaths[K]> };

export type PlatformClient = ServiceClients & {
  /** Where a service's own paths start (the gateway's pass-through, or `direct`). */
  serviceUrl(service: ServiceName): string;
  /** The headers with the caller's current credentials (for a request made outside the SDK). */
  credentialHeaders(): Promise<Record<string, string>>;
  readonly options: Readonly<PlatformClientOptions>;
};

/**
 * One typed client per service (openapi-fetch over the services' own OpenAPI documents), through
 * the gateway: `platform.registry.GET('/api/v1/agents', { params: { query: { limit: 10 } } })`.
 * Runs in the browser and in Node 20 (nothing Node-only on this path).
 */
export function createPlatformClient(options: PlatformClientOptions): PlatformClient {
  const credentials: Credentials = { token: options.token, apiKey: options.apiKey, onUnauthorized: options.onUnauthorized };
  const fetch = authenticatedFetch(credentials, options.fetch);
  const clients = Object.fromEntries(
    SERVICE_NAMES.map((service) => [service, createClient({ baseUrl: serviceBaseUrl(service, options.baseUrl, options.direct), fetch })]),
  ) as unknown as ServiceClients;
  return Object.freeze({
    ...clients,
    serviceUrl: (service: ServiceName) => serviceBaseUrl(service, options.baseUrl, options.direct),
    credentialHeaders: () => credentialHeaders(credentials),
    options: Object.freeze({ ...options }),
  });
}
