import { context, createContextKey, propagation, ROOT_CONTEXT, SpanStatusCode, type Context } from '@opentelemetry/api';
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { tracingStarted } from './sdk';
import { ServerSpan } from './server-spans';

interface RequestContext {
  requestId: string;
}

/**
 * The request id's home: this store while tracing is off; while it runs, the OpenTelemetry context
 * (REQUEST_ID_KEY), which already follows every request. One AsyncLocalStorage instead of two: Node
 * hands each asynchronous resource created (every promise) to every active store.
 */
const storage = new AsyncLocalStorage<RequestContext>();
const REQUEST_ID_KEY = createContextKey('@platform/telemetry request id');

export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId ?? (context.active().getValue(REQUEST_ID_KEY) as string | undefined);
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Requests that get no span: probes and metrics scrapes (noise), and span exports received (the
 * tracing service's /v1/traces: tracing them would export a span per export, for ever).
 */
const UNTRACED = /^\/(health|metrics|v1\/traces)(\/|\?|$)/;

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
  if (!tracingStarted()) storage.run({ requestId }, next);
  else if (UNTRACED.test(req.url)) context.with(ROOT_CONTEXT.setValue(REQUEST_ID_KEY, requestId), next);
  else serveInSpan(req, res, next, propagation.extract(ROOT_CONTEXT, req.headers).setValue(REQUEST_ID_KEY, requestId));
}

/**
 * The request's SERVER span, made here rather than by the OpenTelemetry HTTP instrumentation: the
 * same span (name, kind, parent, route, status) for a fraction of the CPU, since it does not bind
 * every listener of the request and response to the context nor collect attributes nobody reads,
 * and a request the sampler leaves out costs only its span context (ServerSpan).
 */
function serveInSpan(req: Request, res: Response, next: NextFunction, parent: Context): void {
  const { active, span } = ServerSpan.start(req.method, parent);
  if (!span) return context.with(active, next);
  span.attributes['http.request.method'] = req.method;
  span.attributes['url.path'] = req.url.split('?', 1)[0]!;
  span.attributes['url.scheme'] = 'http';
  res.on('close', () => {
    const route = req.route?.path ? `${req.baseUrl}${req.route.path}` : undefined;
    if (route) {
      span.attributes['http.route'] = route;
      span.name = `${req.method} ${route}`;
    }
    const status = res.statusCode;
    span.attributes['http.response.status_code'] = status;
    if (status >= 500 || !res.writableFinished) span.status = { code: SpanStatusCode.ERROR };
    span.end();
  });
  context.with(active, next);
}
