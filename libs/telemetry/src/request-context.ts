import { createContextKey, ROOT_CONTEXT, trace, type Context, type ContextManager } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { ServerSpan, spanPipelineInUse } from './server-spans';

/**
 * The one store of every request's context, tracing on or off: the SDK is given this manager, so
 * OpenTelemetry's context and the request id live in one AsyncLocalStorage (Node hands each
 * asynchronous resource created, every promise, to every active store).
 */
const contextManager = new AsyncLocalStorageContextManager();

/** The context manager the SDK is started with. */
export function requestContextManager(): ContextManager {
  return contextManager;
}

const REQUEST_ID_KEY = createContextKey('@platform/telemetry request id');

/**
 * A served request's context: its id and its span as plain fields. It becomes an OpenTelemetry
 * context (the caller's, with the request's span and id set) only when asked for anything else,
 * as an outgoing call's instrumentation does; most requests never are.
 */
class RequestContext implements Context {
  private otel?: Context;

  constructor(
    readonly requestId: string,
    private readonly span?: ServerSpan,
  ) {}

  getValue(key: symbol): unknown {
    return key === REQUEST_ID_KEY ? this.requestId : this.asOtel().getValue(key);
  }

  setValue(key: symbol, value: unknown): Context {
    return this.asOtel().setValue(key, value);
  }

  deleteValue(key: symbol): Context {
    return this.asOtel().deleteValue(key);
  }

  private asOtel(): Context {
    if (!this.otel) {
      const span = this.span;
      const withId = (span?.parent ?? ROOT_CONTEXT).setValue(REQUEST_ID_KEY, this.requestId);
      // A sampled span records; an unsampled one is its context alone, which callees continue.
      this.otel = span ? trace.setSpan(withId, span) : withId;
    }
    return this.otel;
  }
}

export function currentRequestId(): string | undefined {
  return contextManager.active().getValue(REQUEST_ID_KEY) as string | undefined;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Requests that get no span: probes and metrics scrapes (noise), and span exports received (the
 * tracing service's /v1/traces: tracing them would export a span per export, for ever).
 */
const UNTRACED_PATHS = /^\/(health|metrics|v1\/traces)(\/|\?|$)/;

/** Each route's full path, by its router's base: one string per route, not one per request. */
const routePaths = new WeakMap<object, { baseUrl: string; path: string }>();

function routeOf(baseUrl: string, route: object, routePath: string): string {
  const known = routePaths.get(route);
  if (known?.baseUrl === baseUrl) return known.path;
  const path = `${baseUrl}${routePath}`;
  routePaths.set(route, { baseUrl, path });
  return path;
}

/**
 * Takes a sane incoming X-Request-Id or makes one, returns it as a header and keeps it in context;
 * when tracing runs, the request is served in its trace (a child of an incoming trace context) and,
 * if sampled, its SERVER span is recorded once the response closes.
 *
 * The span is made here rather than by the OpenTelemetry HTTP instrumentation: the same span (name,
 * kind, parent, route, status) for a fraction of the CPU, since it binds no listener of the request
 * to the context, collects no attribute nobody reads, and is encoded for export as it ends.
 */
export function requestContext(req: Request, res: Response, next: NextFunction): void {
  const incoming = req.headers['x-request-id'];
  const requestId = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
  res.setHeader('X-Request-Id', requestId);
  (req as Request & { id: string }).id = requestId;
  const span = spanPipelineInUse() && !UNTRACED_PATHS.test(req.url) ? ServerSpan.start(req.method, req.url, req.headers) : undefined;
  if (span?.isRecording()) {
    res.on('close', () => {
      if (req.route?.path) span.route = routeOf(req.baseUrl, req.route as object, req.route.path as string);
      span.finish(res.statusCode, res.writableFinished);
    });
  }
  contextManager.with(new RequestContext(requestId, span), next);
}
