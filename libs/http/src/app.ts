import express, { type Express, type Request, type RequestHandler, type Router } from 'express';
import type { Logger } from 'pino';
import { requestContext } from '@platform/telemetry';
import type { ApiRouter } from './api-router';
import { errorHandler, routeNotFound } from './error-handler';
import { healthRouter, type HealthOptions } from './health';
import { jsonDepthVerifier } from './input-guards';
import { jsonBody } from './json-body';
import { metrics } from './metrics';
import { buildOpenApiDocument, openApiRouter, type OpenApiInfo } from './openapi';
import { requestLogLine } from './request-logger';

export interface ServiceAppOptions {
  name: string;
  logger: Logger;
  openapi: OpenApiInfo;
  health: Omit<HealthOptions, 'version'>;
  /** The API, mounted under each base path. */
  routers: Array<{ basePath: string; router: ApiRouter }>;
  /** Plain routers mounted at the root before the API (for example `/.well-known`). */
  rootRouters?: Router[];
  /**
   * Middleware run before the shared JSON parser, for routes that read their body themselves (raw
   * bytes kept for a signature or a byte-exact copy, protobuf, streams).
   */
  beforeBody?: RequestHandler[];
  bodyLimit?: string;
  /** Behind a load balancer, so `req.ip` is the client's. */
  trustProxy?: boolean | number | string;
}

/**
 * The one way a service's HTTP app is put together: request ids, logs, metrics, health, the
 * OpenAPI document and docs page, the API routers, then 404 and the error handler.
 */
export function createServiceApp(options: ServiceAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  // No ETag computed over every body: API answers change per request, and the routes whose
  // representations have a stable identity (registry manifests) set their own strong ETag.
  app.set('etag', false);
  app.set('trust proxy', options.trustProxy ?? 'loopback');
  app.set('query parser', 'extended');
  // Without X-Forwarded-For, req.ip is the socket's address whatever 'trust proxy' says; Express
  // would run proxy-addr over the headers on every read to find that out.
  const proxiedIp = Object.getOwnPropertyDescriptor(express.request, 'ip')!.get!;
  Object.defineProperty(app.request, 'ip', {
    configurable: true,
    enumerable: true,
    get(this: Request) {
      return this.headers['x-forwarded-for'] === undefined ? this.socket.remoteAddress : proxiedIp.call(this);
    },
  });
  const { record: recordMetrics, router: metricsRouter } = metrics(options.name);
  const logLine = requestLogLine(options.logger);

  // Request id and context, then one 'finish' listener for the log line and the latency metric.
  app.use((req, res, next) => {
    const started = performance.now();
    res.on('finish', () => {
      const durationMs = performance.now() - started;
      logLine(req, res, durationMs);
      recordMetrics(req, res, durationMs / 1000);
    });
    requestContext(req, res, next);
  });
  for (const handler of options.beforeBody ?? []) app.use(handler);
  app.use(jsonBody({ limit: options.bodyLimit ?? '1mb', verify: jsonDepthVerifier() }));
  const system = express.Router();
  system.use(healthRouter({ ...options.health, version: options.openapi.version }));
  system.use(metricsRouter);
  system.use(
    openApiRouter(
      buildOpenApiDocument(
        options.openapi,
        options.routers.map(({ basePath, router }) => ({ basePath, operations: router.operations })),
      ),
    ),
  );
  // Health, metrics and the OpenAPI document answer GET (and HEAD) only: any other request passes
  // them in one step instead of walking three routers.
  app.use((req, res, next) => (req.method === 'GET' || req.method === 'HEAD' ? system(req, res, next) : next()));
  for (const router of options.rootRouters ?? []) app.use(router);
  for (const { basePath, router } of options.routers) app.use(basePath || '/', router.router);
  app.use(routeNotFound);
  app.use(errorHandler(options.logger));
  return app;
}
