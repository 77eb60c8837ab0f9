import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { tracingStarted } from './sdk';

interface RequestContext {
  requestId: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Requests that get no span: probes and metrics scrapes (noise), and span exports received (the
 * tracing service's /v1/traces: tracing them would export a span per export, for ever).
 */
const UNTRACED = /^\/(health|metrics|v1\/traces)(\/|\?|$)/;

const tracer = trace.getTracer('@platform/telemetry');

/**
 * Takes a sane incoming X-Request-Id or makes one, returns it as a header and keeps it in context;
 * when tracing runs, the request's SERVER span (a child of an incoming `traceparent`) is the
 * active span while it is served.
 */
export function requestContext(req: Request, res: Response, next: NextFunction): void {
  const incoming = req.headers['x-request-id'];
  const requestId = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
  res.setHeader('X-Request-Id', requestId);
  (req as Request & { id: string }).id = requestId;
  if (tracingStarted() && !UNTRACED.test(req.url)) storage.run({ requestId }, serveInSpan, req, res, next);
  else storage.run({ requestId }, next);
}

/**
 * The request's SERVER span, made here rather than by the OpenTelemetry HTTP instrumentation: the
 * same span (name, kind, parent, route, status) for a fraction of the CPU, since it does not bind
 * every listener of the request and response to the context nor collect attributes nobody reads.
 */
function serveInSpan(req: Request, res: Response, next: NextFunction): void {
  const parent = propagation.extract(ROOT_CONTEXT, req.headers);
  const path = req.url.split('?', 1)[0]!;
  const span = tracer.startSpan(
    req.method,
    { kind: SpanKind.SERVER, attributes: { 'http.request.method': req.method, 'url.path': path, 'url.scheme': 'http' } },
    parent,
  );
  const active = trace.setSpan(parent, span);
  // A span the sampler left out records nothing: no need to learn how the request ended.
  if (!span.isRecording()) return context.with(active, next);
  res.on('close', () => {
    const route = req.route?.path ? `${req.baseUrl}${req.route.path}` : undefined;
    if (route) {
      span.setAttribute('http.route', route);
      span.updateName(`${req.method} ${route}`);
    }
    const status = res.statusCode;
    span.setAttribute('http.response.status_code', status);
    if (status >= 500 || !res.writableFinished) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  });
  context.with(active, next);
}
