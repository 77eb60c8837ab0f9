import type { PlatformClient, WebSocketConstructor, WebSocketLike } from './client';
import { PlatformError } from './errors';
import type { ServiceName } from './services';

/** An event of a workflow execution's (or batch's) stream: `node-started`, …, `workflow-completed`. */
export interface ExecutionEvent {
  type: string;
  timestamp: string;
  nodeId?: string;
  [key: string]: unknown;
}

/** An event of the MCP registry's stream. */
export interface RegistryEvent {
  type: 'connection-status' | 'health-check' | 'capability-request';
  connectionId: string;
  timestamp: string;
  [key: string]: unknown;
}

export interface StreamOptions {
  /** Stops the stream (the iterator then ends). */
  signal?: AbortSignal;
  /** Sent once the socket is open (a subscription message). */
  send?: unknown;
}

export interface EventStream<T> extends AsyncIterableIterator<T> {
  close(): void;
}

const OPEN = 1;
/** Close codes the services use for refusals after the upgrade. */
const CLOSE_STATUS: Record<number, [number, string]> = { 4401: [401, 'invalid_token'], 4403: [403, 'insufficient_permissions'], 4404: [404, 'not_found'] };

function webSocketClass(platform: PlatformClient): WebSocketConstructor {
  const constructor = platform.options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
  if (!constructor) throw new Error('No WebSocket class: pass createPlatformClient({ WebSocket }) (the `ws` package in Node 20)');
  return constructor;
}

/** A refused upgrade, as `ws` reports it ("Unexpected server response: 401"); a browser says less. */
function upgradeError(event: unknown, url: string): PlatformError {
  const message = (event as { message?: string; error?: Error })?.message ?? (event as { error?: Error })?.error?.message ?? 'WebSocket error';
  const status = Number(/Unexpected server response: (\d{3})/.exec(message)?.[1] ?? 0);
  const codes: Record<number, string> = {
    401: 'invalid_token',
    403: 'insufficient_permissions',
    404: 'not_found',
    429: 'rate_limited',
    503: 'dependency_unavailable',
  };
  return new PlatformError(
    status,
    codes[status] ?? (status ? `http_${status}` : 'network_error'),
    `${url.replace(/access_token=[^&]+/, 'access_token=…')}: ${message}`,
  );
}

/**
 * A service's WebSocket stream as an async iterator of its JSON messages; it ends when the service
 * closes the socket normally, and throws a `PlatformError` when the upgrade is refused or the
 * socket is closed with a refusal (4401, 4403) or an error. The token goes as `access_token`,
 * which every service and the gateway accept on an upgrade (a browser cannot set headers there).
 */
export async function openStream<T = unknown>(
  platform: PlatformClient,
  service: ServiceName,
  path: string,
  options: StreamOptions = {},
): Promise<EventStream<T>> {
  const url = new URL(`${platform.serviceUrl(service)}${path}`, (globalThis as { location?: { href: string } }).location?.href);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  const headers = await platform.credentialHeaders();
  const credential = headers.authorization?.replace(/^Bearer /, '') ?? headers['x-api-key'];
  if (credential) url.searchParams.set('access_token', credential);
  const Socket = webSocketClass(platform);

  const queue: T[] = [];
  let ended = false;
  let failure: PlatformError | undefined;
  let wake: (() => void) | undefined;
  const notify = () => {
    wake?.();
    wake = undefined;
  };
  const socket: WebSocketLike = new Socket(url.toString());
  socket.onmessage = (event) => {
    const data = typeof event.data === 'string' ? event.data : new TextDecoder().decode(event.data as ArrayBuffer);
    try {
      queue.push(JSON.parse(data) as T);
    } catch {
      queue.push(data as T);
    }
    notify();
  };
  socket.onerror = (event) => {
    failure ??= upgradeError(event, url.toString());
    notify();
  };
  socket.onclose = (event) => {
    ended = true;
    const refusal = CLOSE_STATUS[event.code];
    if (refusal) failure ??= new PlatformError(refusal[0], refusal[1], event.reason || `closed with ${event.code}`);
    else if (event.code !== 1000 && event.code !== 1005) failure ??= new PlatformError(0, 'stream_closed', event.reason || `closed with ${event.code}`);
    notify();
  };
  if (options.send !== undefined) {
    socket.onopen = () => (socket as unknown as { send(data: string): void }).send(JSON.stringify(options.send));
  }
  const close = () => {
    ended = true;
    if (socket.readyState <= OPEN) socket.close(1000);
    notify();
  };
  options.signal?.addEventListener('abort', close, { once: true });

  const iterator: EventStream<T> = {
    close,
    [Symbol.asyncIterator]() {
      return iterator;
    },
    async next(): Promise<IteratorResult<T>> {
      for (;;) {
        if (queue.length) return { value: queue.shift()!, done: false };
        if (failure) {
          const error = failure;
          failure = undefined;
          ended = true;
          close();
          throw error;
        }
        if (ended) return { value: undefined, done: true };
        await new Promise<void>((resolve) => (wake = resolve));
      }
    },
    async return(): Promise<IteratorResult<T>> {
      close();
      return { value: undefined, done: true };
    },
  };
  return iterator;
}

/** A workflow execution's progress, from what already happened to its end (`workflow-completed` / `-failed`). */
export function executionEvents(platform: PlatformClient, executionId: string, options?: StreamOptions): Promise<EventStream<ExecutionEvent>> {
  return openStream<ExecutionEvent>(platform, 'workflowEngine', `/api/v1/executions/${encodeURIComponent(executionId)}/stream`, options);
}

/** A batch's progress (`batch-progress`, `batch-completed`). */
export function batchEvents(platform: PlatformClient, batchId: string, options?: StreamOptions): Promise<EventStream<ExecutionEvent>> {
  return openStream<ExecutionEvent>(platform, 'workflowEngine', `/api/v1/batches/${encodeURIComponent(batchId)}/stream`, options);
}

/**
 * The MCP registry's connection and health events, of the kinds asked for; resolves once the
 * registry confirmed the subscription, so nothing that happens afterwards is missed.
 */
export async function registryEvents(
  platform: PlatformClient,
  events: RegistryEvent['type'][] = ['connection-status', 'health-check', 'capability-request'],
  options?: Omit<StreamOptions, 'send'>,
): Promise<EventStream<RegistryEvent>> {
  type Message = RegistryEvent | { type: 'welcome' | 'subscribed' | 'unsubscribed' } | { type: 'error'; error: { code: string; message: string } };
  const stream = await openStream<Message>(platform, 'mcpRegistry', '/registry/stream', { ...options, send: { action: 'subscribe', events } });
  const next = async (): Promise<IteratorResult<Message>> => {
    const result = await stream.next();
    if (!result.done && result.value.type === 'error') {
      stream.close();
      const { code, message } = (result.value as { error: { code: string; message: string } }).error;
      throw new PlatformError(400, code, message);
    }
    return result;
  };
  for (;;) {
    const result = await next();
    if (result.done) break;
    if (result.value.type === 'subscribed') break;
  }
  const filtered: EventStream<RegistryEvent> = {
    close: stream.close,
    [Symbol.asyncIterator]: () => filtered,
    async next() {
      for (;;) {
        const result = await next();
        if (result.done) return result as IteratorResult<RegistryEvent>;
        if (events.includes(result.value.type as RegistryEvent['type'])) return result as IteratorResult<RegistryEvent>;
      }
    },
    return: () => stream.return!() as Promise<IteratorResult<RegistryEvent>>,
  };
  return filtered;
}
