import express, { type Express, type RequestHandler, type Router } from 'express';
import type { Logger } from 'pino';
import { requestContext } from '@platform/telemetry';
import type { ApiRouter } from './api-router';
import { errorHandler, routeNotFound } from './error-handler';
import { healthRouter, type HealthOptions } from './health';
import { jsonDepthVerifier } from './input-guards';
import { metrics } from './metrics';
import { buildOpenApiDocument, openApiRouter, type OpenApiInfo } from './openapi';
import { requestLogger } from './request-logger';

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
  app.set('trust proxy', options.trustProxy ?? 'loopback');
  app.set('query parser', 'extended');
  const { middleware: measure, router: metricsRouter } = metrics(options.name);

  app.use(requestContext);
  app.use(requestLogger(options.logger));
  app.use(measure);
  for (const handler of options.beforeBody ?? []) app.use(handler);
  app.use(express.json({ limit: options.bodyLimit ?? '1mb', verify: jsonDepthVerifier() }));
  app.use(healthRouter({ ...options.health, version: options.openapi.version }));
  app.use(metricsRouter);
  app.use(
    openApiRouter(
      buildOpenApiDocument(
        options.openapi,
        options.routers.map(({ basePath, router }) => ({ basePath, operations: router.operations })),
      ),
    ),
  );
  for (const router of options.rootRouters ?? []) app.use(router);
  for (const { basePath, router } of options.routers) app.use(basePath || '/', router.router);
  app.use(routeNotFound);
  app.use(errorHandler(options.logger));
  return app;
}
