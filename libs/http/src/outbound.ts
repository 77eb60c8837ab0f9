import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { ApiError } from './errors';

/** Addresses a user-supplied URL may not reach unless the operator allows private networks. */
const PRIVATE = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  PRIVATE.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
] as const)
  PRIVATE.addSubnet(network, prefix, 'ipv6');

export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  // IPv4-mapped IPv6 (::ffff:10.0.0.1) is judged as the IPv4 address it carries.
  const mapped = family === 6 ? /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1] : undefined;
  return mapped ? PRIVATE.check(mapped, 'ipv4') : PRIVATE.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export type OutboundFailure = 'bad_url' | 'blocked_address' | 'redirect_blocked' | 'timeout' | 'too_large' | 'network';

/**
 * A guarded call that failed. A URL the caller may not use answers 400; a peer that fails, hangs
 * or answers too much answers 502. The message names the host, never the response body.
 */
export class OutboundError extends ApiError {
  constructor(
    readonly reason: OutboundFailure,
    message: string,
  ) {
    const refused = reason === 'bad_url' || reason === 'blocked_address';
    super(refused ? 400 : 502, refused ? 'validation_error' : 'api_error', refused ? 'invalid_url' : 'upstream_error', message, { reason });
    this.name = 'OutboundError';
  }
}

export interface GuardOptions {
  /** The whole call, redirects included (default 10 s). */
  timeoutMs?: number;
  /** The response body is cut off past this many bytes: the call fails (default 1 MiB). */
  maxBytes?: number;
  /** Private, loopback and link-local addresses (operators' config; tests allow loopback). */
  allowPrivate?: boolean;
  /** Redirects followed, to the same host only (default 3). */
  maxRedirects?: number;
}

export interface GuardedRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  signal?: AbortSignal;
}

export interface GuardedResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The URL that answered (after same-host redirects). */
  url: string;
  text(): string;
  json<T = unknown>(): T;
}

/**
 * The one way a service calls a URL a user gave it (DESIGN.md, "Services calling services"):
 * http(s) only, a timeout and a response-size cap, redirects only to the same host, and no
 * private, loopback or link-local address unless allowed. Addresses are checked when the
 * connection is made, so a name that resolves differently the second time gains nothing.
 */
export async function guardedFetch(target: string | URL, request: GuardedRequest = {}, options: GuardOptions = {}): Promise<GuardedResponse> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  // One controller and a timer cleared at the end: AbortSignal.timeout and AbortSignal.any keep
  // a timer and listeners alive for the whole timeout after every call, a cost on hot paths.
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException(`timed out after ${timeoutMs} ms`, 'TimeoutError')), timeoutMs);
  const caller = request.signal;
  const forward = () => controller.abort(caller?.reason);
  if (caller?.aborted) forward();
  else caller?.addEventListener('abort', forward, { once: true });
  try {
    let url = parseTarget(target);
    const origin = url.host;
    for (let redirects = 0; ; redirects++) {
      const response = await send(url, request, options, controller.signal, timeoutMs);
      const location = response.headers.location;
      if (response.status < 300 || response.status >= 400 || !location) return response;
      if (redirects >= (options.maxRedirects ?? 3)) throw new OutboundError('redirect_blocked', `Too many redirects from ${origin}`);
      const next = parseTarget(new URL(location, url));
      if (next.host !== origin) throw new OutboundError('redirect_blocked', `${origin} redirected to another host (${next.host})`);
      url = next;
    }
  } finally {
    clearTimeout(timer);
    caller?.removeEventListener('abort', forward);
  }
}

function parseTarget(target: string | URL): URL {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new OutboundError('bad_url', 'The URL is not valid');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OutboundError('bad_url', `Only http and https URLs are allowed, not ${url.protocol}`);
  return url;
}

/**
 * A DNS lookup for `http.request`, `net.connect` or `ws` that refuses a name resolving to a private,
 * loopback or link-local address (unless allowed): the check happens when the connection is made.
 * Literal addresses skip the lookup: check them with `assertPublicHost`.
 */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, lookupOptions, callback) => {
    dnsLookup(hostname, { ...lookupOptions, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const list = addresses as LookupAddress[];
      const blocked = allowPrivate ? undefined : list.find((entry) => isPrivateAddress(entry.address));
      if (blocked) return callback(new OutboundError('blocked_address', `${hostname} resolves to a private address`), '', 0);
      if (lookupOptions.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
      callback(null, list[0].address, list[0].family);
    });
  };
}

/** Throws `blocked_address` for a URL whose host is a literal private address (names are checked at lookup). */
export function assertPublicHost(url: URL, allowPrivate = false): void {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate && isPrivateAddress(host)) throw new OutboundError('blocked_address', `${url.host} is a private address`);
}

/** Where a guarded `host:port` target connects: the address the guard checked, and the name it was given. */
export interface GuardedTarget {
  /** The host as given (a name or a literal address, without brackets). */
  host: string;
  port: number;
  /** The address the guard checked: connect to this one, so a second lookup cannot answer differently. */
  address: string;
  family: 4 | 6;
}

/**
 * The outbound guard for a target that is not a URL (`host:port`, a gRPC address): a valid port, and
 * no private, loopback or link-local address unless allowed (`blocked_address`, as `guardedFetch`
 * answers). A name is resolved once here; connect to the returned address.
 */
export async function guardedTarget(target: string, allowPrivate = false): Promise<GuardedTarget> {
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(target);
  const port = Number(match?.[3]);
  if (!match || port < 1 || port > 65535) throw new OutboundError('bad_url', 'The target is not host:port');
  const host = match[1] ?? match[2];
  const literal = isIP(host);
  if (literal !== 0) {
    if (!allowPrivate && isPrivateAddress(host)) throw new OutboundError('blocked_address', `${target} is a private address`);
    return { host, port, address: host, family: literal as 4 | 6 };
  }
  const addresses = await new Promise<LookupAddress[]>((resolve, reject) =>
    dnsLookup(host, { all: true }, (error, list) =>
      error ? reject(new OutboundError('network', `${host} could not be resolved (${error.code ?? error.message})`)) : resolve(list),
    ),
  );
  if (addresses.length === 0) throw new OutboundError('network', `${host} has no address`);
  if (!allowPrivate && addresses.some((entry) => isPrivateAddress(entry.address)))
    throw new OutboundError('blocked_address', `${host} resolves to a private address`);
  return { host, port, address: addresses[0].address, family: addresses[0].family as 4 | 6 };
}

function send(url: URL, request: GuardedRequest, options: GuardOptions, signal: AbortSignal, timeoutMs: number): Promise<GuardedResponse> {
  try {
    assertPublicHost(url, options.allowPrivate);
  } catch (error) {
    return Promise.reject(error as Error);
  }
  const maxBytes = options.maxBytes ?? 1024 * 1024;
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const outgoing = client.request(
      url,
      { method: request.method ?? 'GET', headers: request.headers, signal, lookup: guardedLookup(options.allowPrivate ?? false) },
      (incoming) => {
        const chunks: Buffer[] = [];
        let size = 0;
        incoming.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) {
            incoming.destroy();
            outgoing.destroy();
            reject(new OutboundError('too_large', `${url.host} answered more than ${maxBytes} bytes`));
          } else chunks.push(chunk);
        });
        incoming.on('error', (error) => reject(failure(error, url, signal, timeoutMs)));
        incoming.on('end', () => {
          const body = Buffer.concat(chunks);
          resolve({
            status: incoming.statusCode ?? 0,
            headers: incoming.headers,
            body,
            url: url.toString(),
            text: () => body.toString('utf8'),
            json: <T>() => JSON.parse(body.toString('utf8')) as T,
          });
        });
      },
    );
    outgoing.on('error', (error) => reject(failure(error, url, signal, timeoutMs)));
    outgoing.end(request.body);
  });
}

function failure(error: Error, url: URL, signal: AbortSignal, timeoutMs: number): Error {
  if (error instanceof OutboundError) return error;
  if ((error as { cause?: unknown }).cause instanceof OutboundError) return (error as { cause: OutboundError }).cause;
  if (signal.aborted) {
    const reason = signal.reason as Error | undefined;
    if (reason?.name === 'TimeoutError') return new OutboundError('timeout', `${url.host} did not answer within ${timeoutMs} ms`);
    return reason instanceof Error ? reason : new OutboundError('network', `The call to ${url.host} was aborted`);
  }
  return new OutboundError('network', `${url.host} could not be reached (${(error as { code?: string }).code ?? error.message})`);
}

/** The shape of `fetch` that clients taking a custom fetch accept (the MCP SDK's `FetchLike`). */
export type FetchLike = (input: string | URL, init?: RequestInit) => Promise<Response>;

export interface StreamGuardOptions {
  /** Until the response headers arrive, redirects included (default 10 s); the body may stream for as long as it lasts. */
  timeoutMs?: number;
  /** Private, loopback and link-local addresses (operators' config; tests allow loopback). */
  allowPrivate?: boolean;
  /** Redirects followed under `redirect: 'follow'`, to the same host only (default 3). */
  maxRedirects?: number;
}

const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/**
 * `guardedFetch` for long-lived streams (server-sent events, MCP's streamable HTTP): a
 * fetch-compatible function whose `Response` body streams from the socket as it arrives. The
 * same guard: http(s) only, redirects to the same host only (`redirect: 'manual'` returns them as
 * they are, `'error'` refuses them), and no private, loopback or link-local address unless allowed,
 * checked when the connection is made. The timeout covers the connection and the response headers,
 * not the body; the caller's `signal` ends the call or the stream at any time.
 */
export function guardedStreamFetch(options: StreamGuardOptions = {}): FetchLike {
  return async (input, init = {}) => {
    let url = parseTarget(input);
    const origin = url.host;
    let method = (init.method ?? 'GET').toUpperCase();
    const headers = new Headers(init.headers);
    let body = init.body === undefined || init.body === null ? undefined : Buffer.from(await new Response(init.body).arrayBuffer());
    for (let redirects = 0; ; redirects++) {
      const response = await sendStreaming(url, method, headers, body, options, init.signal ?? undefined);
      const location = response.headers.get('location');
      if (response.status < 300 || response.status >= 400 || !location || init.redirect === 'manual') return response;
      await response.body?.cancel();
      if (init.redirect === 'error') throw new OutboundError('redirect_blocked', `${origin} answered with a redirect`);
      if (redirects >= (options.maxRedirects ?? 3)) throw new OutboundError('redirect_blocked', `Too many redirects from ${origin}`);
      const next = parseTarget(new URL(location, url));
      if (next.host !== origin) throw new OutboundError('redirect_blocked', `${origin} redirected to another host (${next.host})`);
      // As fetch does: 303, and 301/302 after a POST, continue as a GET without a body.
      if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === 'POST')) {
        method = 'GET';
        body = undefined;
        headers.delete('content-type');
        headers.delete('content-length');
      }
      url = next;
    }
  };
}

function sendStreaming(
  url: URL,
  method: string,
  headers: Headers,
  body: Buffer | undefined,
  options: StreamGuardOptions,
  signal: AbortSignal | undefined,
): Promise<Response> {
  assertPublicHost(url, options.allowPrivate);
  if (signal?.aborted) return Promise.reject(signal.reason as Error);
  const timeoutMs = options.timeoutMs ?? 10_000;
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    let settled = false;
    let incoming: http.IncomingMessage | undefined;
    const outgoing = client.request(url, { method, headers: Object.fromEntries(headers), lookup: guardedLookup(options.allowPrivate ?? false) });
    const onAbort = () => {
      const reason = signal?.reason as Error;
      outgoing.destroy(reason);
      incoming?.destroy(reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const done = () => signal?.removeEventListener('abort', onAbort);
    const timer = setTimeout(() => outgoing.destroy(new OutboundError('timeout', `${url.host} did not answer within ${timeoutMs} ms`)), timeoutMs);
    outgoing.on('error', (error) => {
      clearTimeout(timer);
      done();
      if (settled) return;
      settled = true;
      if (signal?.aborted) return reject(signal.reason as Error);
      reject(error instanceof OutboundError ? error : failure(error, url, new AbortController().signal, timeoutMs));
    });
    outgoing.on('response', (response) => {
      clearTimeout(timer);
      incoming = response;
      response.once('close', done);
      const status = response.statusCode ?? 0;
      if (status < 200 || status > 599) {
        response.destroy();
        settled = true;
        return reject(new OutboundError('network', `${url.host} answered with HTTP status ${status}`));
      }
      const responseHeaders = new Headers();
      for (const [name, value] of Object.entries(response.headers)) {
        if (value === undefined) continue;
        for (const item of Array.isArray(value) ? value : [value]) responseHeaders.append(name, item);
      }
      let stream: Readable = response;
      const decoder = decoderFor(responseHeaders.get('content-encoding'));
      if (decoder) {
        stream = response.pipe(decoder);
        response.on('error', (error) => decoder.destroy(error));
        decoder.on('close', () => response.destroy());
        responseHeaders.delete('content-encoding');
        responseHeaders.delete('content-length');
      }
      const hasBody = method !== 'HEAD' && !NULL_BODY_STATUSES.has(status);
      if (!hasBody) response.resume();
      const result = new Response(hasBody ? (Readable.toWeb(stream) as unknown as ReadableStream<Uint8Array>) : null, {
        status,
        statusText: response.statusMessage,
        headers: responseHeaders,
      });
      Object.defineProperty(result, 'url', { value: url.toString() });
      settled = true;
      resolve(result);
    });
    outgoing.end(body);
  });
}

/** fetch decodes these content encodings; so does the streaming guard. */
function decoderFor(encoding: string | null): zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress | undefined {
  switch (encoding?.trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip();
    case 'deflate':
      return zlib.createInflate();
    case 'br':
      return zlib.createBrotliDecompress();
    default:
      return undefined;
  }
}
