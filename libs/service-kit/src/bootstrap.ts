import { baseEnvShape, env, environmentWithRole, loadConfig, serviceDatabaseUrl, type BaseConfig } from '@platform/config';
import {
  closeRedis,
  createRedis,
  DependencyUnavailableError,
  migrateDatabase,
  postgresCheck,
  prismaAdapter,
  redactedUrl,
  redisCheck,
  waitForRedis,
} from '@platform/data';
import { createServiceApp, unavailableDependency, type ApiRouter, type HealthCheck, type HealthOptions } from '@platform/http';
import type { TokenVerifier } from '@platform/jwt';
import { createWorker, TypedQueue, type QueueDefinition, type WorkerOptions } from '@platform/queues';
import { createLogger, stopTelemetry, type Logger } from '@platform/telemetry';
import type { PrismaPg } from '@prisma/adapter-pg';
import type { Worker } from 'bullmq';
import type { Express, RequestHandler, Router } from 'express';
import type { Redis } from 'ioredis';
import type { Server } from 'node:http';
import type { z } from 'zod';
import { createTokenVerifier } from './authentication';
import { exitOnStartupFailure, listen, stopOnSignals } from './service';
import { Shutdown, ShutdownPriority } from './shutdown';

export type ServiceRole = BaseConfig['SERVICE_ROLE'];

/** What a service's generated Prisma client offers the bootstrap. */
export interface DatabaseClient {
  $queryRawUnsafe: (sql: string) => Promise<unknown>;
  $disconnect: () => Promise<void>;
}

/** The queues of a service: producers for every role, processors only where the role runs them. */
export interface QueueRegistry {
  /** A producer, closed on shutdown. */
  producer<S extends z.ZodType>(definition: QueueDefinition<S>): TypedQueue<S>;
  /**
   * Registers the one processor of a queue. It starts after the service is up, and only in the
   * `all` and `worker` roles; `undefined` is returned in the `api` role.
   */
  process<S extends z.ZodType>(definition: QueueDefinition<S>, handler: Parameters<typeof createWorker<S>>[2], options?: WorkerOptions): Worker | undefined;
}

/** What the bootstrap hands a service's `build`: its config and every piece of infrastructure. */
export interface ServiceInfra<C, D> {
  name: string;
  version: string;
  config: C;
  role: ServiceRole;
  logger: Logger;
  /** Redis for commands (fails fast while disconnected). */
  redis: Redis;
  /** The service's Prisma client (only when the definition names a `database`). */
  db: D;
  /** Verifies platform tokens (JWKS of `auth`, revocations from Redis); created on first use. */
  verifier: () => Promise<TokenVerifier>;
  queues: QueueRegistry;
  /** Registers a component's close, in priority order (`ShutdownPriority`). */
  onShutdown: Shutdown['onShutdown'];
}

/** What a service is made of, as its `build` returns it. */
export interface ServiceParts {
  /** The API, each router under its base path. Not mounted in the `worker` role. */
  routers?: Array<{ basePath: string; router: ApiRouter }>;
  /** Plain routers at the root (for example `/.well-known`). */
  rootRouters?: Router[];
  /** Middleware before the JSON parser (raw bodies). */
  beforeBody?: RequestHandler[];
  /** Extra health probes beside Postgres and Redis, extra `/health` fields and paths. */
  health?: Partial<Pick<HealthOptions, 'checks' | 'extra' | 'aliases'>>;
  /** Called with the listening server (WebSocket upgrades). Not called in the `worker` role. */
  onListening?: (server: Server) => void;
}

export interface ServiceDefinition<S extends z.ZodRawShape, D, P extends ServiceParts = ServiceParts> {
  /** The service's name: its Postgres schema, its log and trace name, its env prefix. */
  name: string;
  version: string;
  /** Default port (env `PORT` overrides). */
  port: number;
  openapi: { title: string; description?: string };
  /** The service's own env fields, beside the common ones of `@platform/config`. */
  config: S;
  /** Creates the service's Prisma client over the adapter the bootstrap configured. */
  database?: (adapter: PrismaPg) => D;
  /** Builds the service's parts; extra fields of what it returns stay reachable as `parts` (tests). */
  build: (infra: ServiceInfra<Readonly<z.output<z.ZodObject<typeof baseEnvShape & S & { PORT: z.ZodType<number> }>>>, D>) => P | Promise<P>;
}

export type ConfigOf<T> = T extends ServiceDefinition<infer S, unknown, ServiceParts> ? Readonly<z.output<z.ZodObject<typeof baseEnvShape & S>>> : never;

/** Declares a service; `runService` starts it, `startService` starts it in a test. */
export function defineService<S extends z.ZodRawShape, D = undefined, P extends ServiceParts = ServiceParts>(
  definition: ServiceDefinition<S, D, P>,
): ServiceDefinition<S, D, P> {
  return definition;
}

export interface StartOptions {
  /** Environment variables over `process.env` (tests: `PORT: '0'`, a test database, ...). */
  env?: Record<string, string | undefined>;
  /** Replaces the JWKS verifier (tests sign their own tokens). */
  verifier?: TokenVerifier;
  logger?: Logger;
  /** Ignore `process.env` (tests that must not see the developer's environment). */
  isolated?: boolean;
}

export interface StartedService<C, D, P extends ServiceParts = ServiceParts> {
  app: Express;
  server: Server;
  port: number;
  url: string;
  infra: ServiceInfra<C, D>;
  parts: P;
  stop: () => Promise<void>;
}

// Migrations run once per database and service in a process (tests start a service many times).
const migrations = new Map<string, Promise<void>>();

/**
 * Starts a service: config, logger, migrations, Postgres, Redis, the token verifier, its parts,
 * the HTTP server (health and metrics in every role, the API unless `worker`), then the queue
 * processors (unless `api`). Shutdown closes everything in priority order.
 */
export async function startService<S extends z.ZodRawShape, D, P extends ServiceParts>(definition: ServiceDefinition<S, D, P>, options: StartOptions = {}) {
  type C = Readonly<z.output<z.ZodObject<typeof baseEnvShape & S & { PORT: z.ZodType<number> }>>>;
  const source = options.isolated ? { ...options.env } : { ...environmentWithRole(), ...options.env };
  const shape = { ...baseEnvShape, PORT: env.port(definition.port), ...definition.config };
  const config = loadConfig(shape, source) as unknown as C & BaseConfig & { PORT: number };
  const logger = options.logger ?? createLogger(definition.name, definition.version, config.LOG_LEVEL);
  const shutdown = new Shutdown(logger);
  try {
    const redis = createRedis(config.REDIS_URL);
    shutdown.onShutdown('redis', () => closeRedis(redis), ShutdownPriority.stores);
    await waitForRedis(redis, config.REDIS_URL);

    let db = undefined as D;
    const checks: Record<string, HealthCheck> = { cache: redisCheck(redis) };
    if (definition.database) {
      const databaseUrl = serviceDatabaseUrl(definition.name, config.DATABASE_URL, source);
      if (config.MIGRATE_ON_START) {
        const key = `${definition.name} ${databaseUrl}`;
        if (!migrations.has(key))
          migrations.set(
            key,
            migrateDatabase(definition.name, databaseUrl).catch((error) => (migrations.delete(key), Promise.reject(error))),
          );
        await migrations.get(key);
      }
      const client = definition.database(
        prismaAdapter(databaseUrl, definition.name, { poolSize: config.DATABASE_POOL_SIZE, statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS }),
      );
      const probe = client as unknown as DatabaseClient;
      shutdown.onShutdown('postgres', () => probe.$disconnect(), ShutdownPriority.stores);
      await probe.$queryRawUnsafe('SELECT 1').catch((error: unknown) => {
        // MIGRATE_ON_START=false skips the check that says this in one line; say it here too.
        throw unavailableDependency(error) ? new DependencyUnavailableError(`PostgreSQL is not reachable at ${redactedUrl(databaseUrl)}`) : error;
      });
      db = client;
      checks.database = postgresCheck(probe);
    }

    let verifier: Promise<TokenVerifier> | undefined = options.verifier && Promise.resolve(options.verifier);
    const processors: Array<() => Worker> = [];
    const workers: Worker[] = [];
    const infra: ServiceInfra<C, D> = {
      name: definition.name,
      version: definition.version,
      config,
      role: config.SERVICE_ROLE,
      logger,
      redis,
      db,
      verifier: () =>
        (verifier ??= createTokenVerifier(config, redis).then(({ verifier: created, revocations }) => {
          shutdown.onShutdown('revocations', () => revocations.stop(), ShutdownPriority.components);
          return created;
        })),
      queues: {
        producer(queueDefinition) {
          const queue = new TypedQueue(queueDefinition, config.REDIS_URL);
          shutdown.onShutdown(`queue ${queueDefinition.name}`, () => queue.close(), ShutdownPriority.producers);
          return queue;
        },
        process(queueDefinition, handler, workerOptions = {}) {
          if (config.SERVICE_ROLE === 'api') return undefined;
          // Created paused and resumed once the service is up: no job runs against a half-built service.
          const worker = createWorker(queueDefinition, config.REDIS_URL, handler, { ...workerOptions, autorun: false });
          shutdown.onShutdown(`worker ${queueDefinition.name}`, () => worker.close(), ShutdownPriority.workers);
          processors.push(() => worker);
          return worker;
        },
      },
      onShutdown: shutdown.onShutdown.bind(shutdown),
    };

    const parts = await definition.build(infra);
    const serveApi = config.SERVICE_ROLE !== 'worker';
    const app = createServiceApp({
      name: definition.name,
      logger,
      openapi: { ...definition.openapi, version: definition.version },
      health: { ...parts.health, checks: { ...checks, ...parts.health?.checks } },
      routers: serveApi ? (parts.routers ?? []) : [],
      rootRouters: serveApi ? parts.rootRouters : [],
      beforeBody: serveApi ? parts.beforeBody : [],
      bodyLimit: config.BODY_LIMIT,
      trustProxy: config.TRUST_PROXY,
    });
    const running = await listen(app, { port: config.PORT, host: config.HOST, logger, onServer: serveApi ? parts.onListening : undefined });
    shutdown.onShutdown('http', () => running.stop(), ShutdownPriority.intake);
    shutdown.onShutdown('telemetry', () => stopTelemetry(), ShutdownPriority.telemetry);
    for (const worker of processors.map((make) => make())) {
      workers.push(worker);
      void worker.run().catch((error) => logger.error({ err: error, queue: worker.name }, 'queue worker stopped'));
    }
    logger.info({ port: running.port, role: config.SERVICE_ROLE, queues: workers.map((worker) => worker.name) }, `${definition.name} listening`);
    const started: StartedService<C, D, P> = {
      app,
      server: running.server,
      port: running.port,
      url: `http://127.0.0.1:${running.port}`,
      infra,
      parts,
      stop: () => shutdown.run(),
    };
    return started;
  } catch (error) {
    await shutdown.run();
    throw error;
  }
}

/** A service's `main.ts`: start it, stop it gracefully on SIGTERM/SIGINT, or exit with one line. */
export function runService<S extends z.ZodRawShape, D, P extends ServiceParts>(definition: ServiceDefinition<S, D, P>): void {
  startService(definition).then((service) => stopOnSignals(service, service.infra.logger), exitOnStartupFailure(definition.name));
}
