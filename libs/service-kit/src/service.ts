import express, { type Express, type Router } from 'express';
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import type { ApiRouter } from './api-router';
import { errorHandler, routeNotFound } from './error-handler';
import { healthRouter, type HealthOptions } from './health';
import { metrics } from './metrics';
import { buildOpenApiDocument, openApiRouter, type OpenApiInfo } from './openapi';
import { requestContext } from './request-context';
import { requestLogger } from './request-logger';
import { ConfigError } from './config';
import { DependencyUnavailableError } from './redis';

export interface ServiceAppOptions {
  name: string;
  logger: Logger;
  openapi: OpenApiInfo;
  health: Omit<HealthOptions, 'version'>;
  /** The API, mounted under each base path. */
  routers: Array<{ basePath: string; router: ApiRouter }>;
  /** Plain routers mounted at the root before the API (for example `/.well-known`). */
  rootRouters?: Router[];
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
  app.use(express.json({ limit: options.bodyLimit ?? '1mb' }));
  app.use(healthRouter({ ...options.health, version: options.openapi.version }));
  app.use(metricsRouter);
  app.use(openApiRouter(buildOpenApiDocument(options.openapi, options.routers.map(({ basePath, router }) => ({ basePath, operations: router.operations })))));
  for (const router of options.rootRouters ?? []) app.use(router);
  for (const { basePath, router } of options.routers) app.use(basePath || '/', router.router);
  app.use(routeNotFound);
  app.use(errorHandler(options.logger));
  return app;
}

/** Something to close on shutdown, in the order given (stop intake first, stores last). */
export interface Closer {
  name: string;
  close: () => Promise<unknown> | unknown;
}

export interface RunningService {
  server: Server;
  port: number;
  stop: () => Promise<void>;
}

/** Listens, and on SIGTERM/SIGINT stops intake, then closes each closer in order. */
export async function listen(app: Express, options: { port: number; host?: string; logger: Logger; closers?: Closer[]; onServer?: (server: Server) => void }): Promise<RunningService> {
  const server = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(options.port, options.host ?? '0.0.0.0', () => resolve(s));
    s.once('error', reject);
  });
  options.onServer?.(server);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 10_000).unref();
      });
      await closeInOrder(options.closers ?? [], options.logger);
    })());
  return { server, port, stop };
}

/** Closes each closer in turn; one that fails is logged and the rest still close. */
export async function closeInOrder(closers: readonly Closer[], logger: Logger): Promise<void> {
  for (const closer of closers) {
    try {
      await closer.close();
    } catch (error) {
      logger.warn({ err: error, closer: closer.name }, 'error while closing');
    }
  }
}

/** Wires process signals to a graceful stop; a second signal exits at once. */
export function stopOnSignals(service: Pick<RunningService, 'stop'>, logger: Logger): void {
  let signalled = false;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (signalled) process.exit(1);
      signalled = true;
      logger.info({ signal }, 'shutting down');
      service.stop().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    });
  }
}

/**
 * The end of a service's `main().catch(...)`: a missing dependency or a bad setting is one line
 * that says what to do; anything else keeps its stack. Exits non-zero.
 */
export function exitOnStartupFailure(service: string): (error: unknown) => never {
  return (error) => {
    const expected = error instanceof DependencyUnavailableError || error instanceof ConfigError;
    const detail = expected ? (error as Error).message : String((error as Error)?.stack ?? error);
    console.error(`${service} failed to start: ${detail}`);
    process.exit(1);
  };
}
