import { context, propagation } from '@opentelemetry/api';
import { ApiError, guardedFetch, OutboundError, type GuardOptions } from '@platform/http';
import { currentRequestId } from '@platform/telemetry';
import type { z } from 'zod';

/** Where a bearer token for a call comes from: a user's forwarded token or the service's own. */
export type TokenSource = () => Promise<string | undefined> | string | undefined;

/** One HTTP exchange, as the client's transport performs it. */
export interface TransportRequest {
  method: string;
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal;
  timeoutMs: number;
}
export interface TransportResponse {
  status: number;
  text: string;
}
export type Transport = (url: string, request: TransportRequest) => Promise<TransportResponse>;

/** Platform services at configured URLs: plain fetch with the call's timeout. */
export const fetchTransport: Transport = async (url, request) => {
  const response = await fetch(url, { method: request.method, headers: request.headers, body: request.body, signal: request.signal, redirect: 'error' });
  return { status: response.status, text: await response.text() };
};

/** Systems whose URL a user or operator supplied (a CMS, an SCM): through the outbound guard. */
export const guardedTransport =
  (options: Omit<GuardOptions, 'timeoutMs'> = {}): Transport =>
  async (url, request) => {
    const response = await guardedFetch(
      url,
      { method: request.method, headers: request.headers, body: request.body, signal: request.signal },
      { ...options, timeoutMs: request.timeoutMs },
    );
    return { status: response.status, text: response.text() };
  };

export interface ClientOptions {
  /** The dependency's name, used in every error (`local-models`, `mcp-registry`, `cms`). */
  service: string;
  baseUrl: string;
  /** Per attempt (default 10 s). */
  timeoutMs?: number;
  /** Extra attempts of idempotent calls after a network failure, timeout or 5xx (default 2). */
  retries?: number;
  /** First retry delay; doubled each time, with jitter (default 100 ms). */
  retryDelayMs?: number;
  /** The service's own token when a call carries no forwarded one. */
  token?: TokenSource;
  transport?: Transport;
  /** Extra headers on every call (an `Accept` media type, ...). */
  headers?: Record<string, string>;
}

export interface CallOptions<S extends z.ZodType | undefined> {
  body?: unknown;
  query?: Record<string, string | number | boolean | undefined>;
  /** Parses the answer; a body that does not match is an upstream error. */
  schema?: S;
  /** Retried on failure (GET, PUT, DELETE and calls known to be safe to repeat). Default: GET only. */
  idempotent?: boolean;
  /** A user's bearer token forwarded instead of the service's own. */
  bearer?: string;
  timeoutMs?: number;
  signal?: AbortSignal;
  headers?: Record<string, string>;
  contentType?: string;
}

/**
 * A dependency that failed: unreachable, timed out, answered 5xx or an unreadable body (502), or
 * refused the call (its own 4xx status is kept in `upstreamStatus`, the answer stays 502 for our
 * callers unless they map it).
 */
export class UpstreamError extends ApiError {
  constructor(
    readonly service: string,
    message: string,
    readonly reason: 'timeout' | 'network' | 'status' | 'invalid_response' | 'blocked',
    readonly upstreamStatus?: number,
    readonly upstreamBody?: unknown,
  ) {
    super(502, 'api_error', 'upstream_error', message, { service, reason, ...(upstreamStatus !== undefined && { status: upstreamStatus }) });
    this.name = 'UpstreamError';
  }

  /** Worth trying again: the peer was down, slow or failing, not refusing the request. */
  get retryable(): boolean {
    return (
      this.reason === 'timeout' ||
      this.reason === 'network' ||
      (this.upstreamStatus !== undefined && (this.upstreamStatus >= 500 || this.upstreamStatus === 429))
    );
  }
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });

type Out<S> = S extends z.ZodType ? z.output<S> : unknown;

/**
 * The base of every typed client (DESIGN.md, "Services calling services"): base URL from config,
 * a timeout on every call, retries with backoff for idempotent calls only, the trace context and
 * request id carried, and a forwarded user token or the service's own.
 */
export class ServiceClient {
  readonly service: string;
  readonly baseUrl: string;
  private readonly transport: Transport;

  constructor(private readonly options: ClientOptions) {
    this.service = options.service;
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.transport = options.transport ?? fetchTransport;
  }

  url(path: string, query?: CallOptions<undefined>['query']): string {
    const url = new URL(/^https?:\/\//.test(path) ? path : `${this.baseUrl}${path.startsWith('/') ? '' : '/'}${path}`);
    for (const [key, value] of Object.entries(query ?? {})) if (value !== undefined) url.searchParams.set(key, String(value));
    return url.toString();
  }

  async request<S extends z.ZodType | undefined = undefined>(method: string, path: string, call: CallOptions<S> = {}): Promise<Out<S>> {
    const idempotent = call.idempotent ?? method.toUpperCase() === 'GET';
    const attempts = 1 + (idempotent ? (this.options.retries ?? 2) : 0);
    const timeoutMs = call.timeoutMs ?? this.options.timeoutMs ?? 10_000;
    const url = this.url(path, call.query);
    const headers: Record<string, string> = { Accept: 'application/json', ...this.options.headers, ...call.headers };
    if (call.body !== undefined) headers['Content-Type'] = call.contentType ?? 'application/json';
    const token = call.bearer ?? (await this.options.token?.());
    if (token) headers.Authorization = `Bearer ${token}`;
    const requestId = currentRequestId();
    if (requestId) headers['X-Request-Id'] = requestId;
    propagation.inject(context.active(), headers);
    const body = call.body === undefined ? undefined : typeof call.body === 'string' ? call.body : JSON.stringify(call.body);

    for (let attempt = 1; ; attempt++) {
      try {
        const answer = await this.once(method.toUpperCase(), url, { headers, body, timeoutMs, signal: call.signal });
        return this.parse(answer, method, path, call.schema) as Out<S>;
      } catch (error) {
        const retry = error instanceof UpstreamError && error.retryable && attempt < attempts && !call.signal?.aborted;
        if (!retry) throw error;
        const base = (this.options.retryDelayMs ?? 100) * 2 ** (attempt - 1);
        await sleep(base / 2 + Math.random() * (base / 2), call.signal);
      }
    }
  }

  private async once(
    method: string,
    url: string,
    call: { headers: Record<string, string>; body?: string; timeoutMs: number; signal?: AbortSignal },
  ): Promise<TransportResponse> {
    const timeout = AbortSignal.timeout(call.timeoutMs);
    const signal = call.signal ? AbortSignal.any([call.signal, timeout]) : timeout;
    try {
      return await this.transport(url, { method, headers: call.headers, body: call.body, signal, timeoutMs: call.timeoutMs });
    } catch (error) {
      if (call.signal?.aborted) throw call.signal.reason ?? error;
      if (error instanceof OutboundError) {
        if (error.reason === 'timeout') throw new UpstreamError(this.service, `${this.service} did not answer within ${call.timeoutMs} ms`, 'timeout');
        if (error.reason === 'bad_url' || error.reason === 'blocked_address' || error.reason === 'redirect_blocked')
          throw new UpstreamError(this.service, `${this.service}: ${error.message}`, 'blocked');
        throw new UpstreamError(this.service, `${this.service}: ${error.message}`, error.reason === 'too_large' ? 'invalid_response' : 'network');
      }
      if (timeout.aborted) throw new UpstreamError(this.service, `${this.service} did not answer within ${call.timeoutMs} ms`, 'timeout');
      const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
      throw new UpstreamError(this.service, `${this.service} could not be reached at ${new URL(url).host} (${cause})`, 'network');
    }
  }

  private parse(answer: TransportResponse, method: string, path: string, schema: z.ZodType | undefined): unknown {
    let json: unknown;
    try {
      json = answer.text ? JSON.parse(answer.text) : undefined;
    } catch {
      if (answer.status < 400)
        throw new UpstreamError(this.service, `${this.service} did not answer ${method} ${path} with JSON`, 'invalid_response', answer.status);
    }
    if (answer.status >= 400) {
      const message = (json as { error?: { message?: string } | string })?.error;
      const detail = typeof message === 'string' ? message : message?.message;
      throw new UpstreamError(
        this.service,
        `${this.service} answered ${method} ${path.split('?')[0]} with ${answer.status}${detail ? `: ${String(detail).slice(0, 200)}` : ''}`,
        'status',
        answer.status,
        json,
      );
    }
    if (!schema) return json;
    const parsed = schema.safeParse(json);
    if (!parsed.success)
      throw new UpstreamError(
        this.service,
        `${this.service} answered ${method} ${path.split('?')[0]} with an unexpected body`,
        'invalid_response',
        answer.status,
      );
    return parsed.data;
  }
}
