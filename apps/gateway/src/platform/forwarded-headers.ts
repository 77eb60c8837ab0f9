import { context, propagation } from '@opentelemetry/api';
import { currentRequestId } from '@platform/telemetry';
import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders } from 'node:http';

// Hop-by-hop headers (RFC 9110, 7.6.1) and what must never reach a service: the console's session
// cookie (its refresh token) and the host the caller addressed.
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'cookie',
  'x-api-key',
]);

/** Headers named in `Connection` are hop-by-hop too. */
function connectionTokens(headers: IncomingHttpHeaders): Set<string> {
  const value = headers.connection;
  return new Set(
    (Array.isArray(value) ? value.join(',') : (value ?? ''))
      .split(',')
      .map((token) => token.trim().toLowerCase())
      .filter(Boolean),
  );
}

/** The request's headers as the service receives them: end-to-end ones, who called, the trace. */
export function upstreamRequestHeaders(req: IncomingMessage): OutgoingHttpHeaders {
  const named = connectionTokens(req.headers);
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || named.has(name) || name.startsWith('sec-websocket-') || name === 'traceparent' || name === 'tracestate')
      continue;
    headers[name] = value;
  }
  const address = req.socket.remoteAddress;
  const forwardedFor = req.headers['x-forwarded-for'];
  headers['x-forwarded-for'] = [forwardedFor, address].filter(Boolean).join(', ');
  headers['x-forwarded-host'] ??= req.headers.host;
  headers['x-forwarded-proto'] ??= 'encrypted' in req.socket && req.socket.encrypted ? 'https' : 'http';
  const requestId = currentRequestId();
  if (requestId) headers['x-request-id'] = requestId;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  Object.assign(headers, carrier);
  return headers;
}

/** The service's answer headers as the caller receives them; the gateway's own (rate limit, request id) win. */
export function downstreamResponseHeaders(upstream: IncomingMessage, alreadySet: (name: string) => boolean): OutgoingHttpHeaders {
  const named = connectionTokens(upstream.headers);
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(upstream.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || named.has(name) || name === 'set-cookie' || alreadySet(name)) continue;
    headers[name] = value;
  }
  return headers;
}
