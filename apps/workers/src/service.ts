import { MeshClient, serviceApiKeyToken } from '@platform/clients';
import { env, serviceDatabaseUrl } from '@platform/config';
import { sqlPool } from '@platform/data';
import { ApiRouter } from '@platform/http';
import { defineService, ShutdownPriority } from '@platform/service-kit';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { z } from 'zod';
import { ControlRepository } from './control/control.repository';
import { controlRoutes } from './control/control.router';
import { createDatabase } from './database';
import { definitionRoutes } from './definitions/definitions.router';
import { DefinitionsRepository } from './definitions/definitions.repository';
import { DefinitionsService } from './definitions/definitions.service';
import { CancelBus } from './engine/cancel-bus';
import { EngineRepository, engineSqlSettings } from './engine/engine.repository';
import { StepExecutor } from './engine/executor';
import { Reaper } from './engine/reaper';
import { RedisWatch, type WatchedConnection } from './redis-watch';
import { StepDispatcher, stepQueue } from './engine/step-queue';
import { runRoutes } from './runs/runs.router';
import { RunsRepository } from './runs/runs.repository';
import { RunsService } from './runs/runs.service';
import { Datasources } from './steps/database-step';
import { MeshRouting } from './steps/mesh-routing';
import { taskRoutes } from './tasks/tasks.router';
import { TasksRepository } from './tasks/tasks.repository';
import { TasksService } from './tasks/tasks.service';
import { workerRoutes } from './workers/workers.router';
import { WorkersRepository } from './workers/workers.repository';

const DatasourcesJson = z
  .string()
  .default('{}')
  .transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'not JSON' });
      return z.NEVER;
    }
  })
  .pipe(z.record(z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/), z.object({ url: z.string().url(), writable: z.boolean().default(false) })));

export const workersService = defineService({
  name: 'workers',
  version: '1.0.0',
  port: 3003,
  openapi: { title: 'Workers API', description: 'Durable DAGs of http, agent and database steps on BullMQ, with Postgres as the record of truth.' },
  config: {
    /** The BullMQ queue of step jobs; API and workers of one deployment share it, separate pools use separate ones. */
    WORKERS_QUEUE: z
      .string()
      .regex(/^workers\.[a-z0-9._-]{1,100}$/, 'workers.<name>')
      .default('workers.steps'),
    /** Step attempts one worker process runs at once. */
    WORKERS_CONCURRENCY: env.int(32, { min: 1, max: 1000 }),
    /** How long a step's lease lasts without renewal; a dead worker's steps are orphans after it. */
    WORKERS_LEASE_MS: env.ms(30_000),
    /** Worker heartbeat period; a worker silent for WORKERS_DEAD_AFTER_MS is dead. */
    WORKERS_HEARTBEAT_MS: env.ms(5_000),
    WORKERS_DEAD_AFTER_MS: env.ms(20_000),
    /** How often the reaper recovers orphans, re-queues lost jobs and runs the watchdog. */
    WORKERS_REAPER_INTERVAL_MS: env.ms(5_000),
    /** The watchdog (deadlock detection): a run without progress this long, with nothing leased or backing off, fails. */
    WORKERS_WATCHDOG_MS: env.ms(600_000),
    /**
     * A step found orphaned this many times (its worker died or hung while running it each time) is
     * a poison step: failed with a clear error instead of recovered, and killing workers, for good.
     */
    WORKERS_POISON_AFTER: env.int(2, { min: 1, max: 100 }),
    /** A queued step whose job has not started this long after it was due is queued again. */
    WORKERS_REQUEUE_AFTER_MS: env.ms(30_000),
    /** Timeout of an attempt when neither the step nor its task type sets one. */
    WORKERS_DEFAULT_TIMEOUT_MS: env.ms(60_000),
    WORKERS_MAX_STEPS: env.int(200, { min: 1, max: 1000 }),
    WORKERS_MAX_DEFINITION_BYTES: env.int(256 * 1024, { min: 1024, max: 10 * 1024 * 1024 }),
    WORKERS_MAX_RESPONSE_BYTES: env.int(256 * 1024, { min: 1024, max: 50 * 1024 * 1024 }),
    /** Whether http and agent steps may call private, loopback and link-local addresses. */
    WORKERS_ALLOW_PRIVATE_URLS: env.bool(false),
    /** Directory of YAML/JSON definitions for `POST /workflows/reload`. */
    WORKERS_DEFINITIONS_DIR: z.string().optional(),
    /** The agent mesh: when set, agent steps post their task to the endpoint its routing resolves for the step's `agent`. */
    MESH_URL: z.string().url().optional(),
    /** Timeout of one call to the mesh (routing lookups of agent steps). */
    WORKERS_MESH_TIMEOUT_MS: env.ms(5_000),
    /** The service's own API key (issued by auth, exchanged at AUTH_URL) for its calls to other services (the mesh). */
    WORKERS_API_KEY: z.string().min(1).optional(),
    /**
     * How long a Redis command may wait for its answer (then 503 naming `cache`), and how long the
     * watch's PING may before the connection is taken for dead and replaced.
     */
    WORKERS_REDIS_TIMEOUT_MS: env.ms(2_000),
    /** How often each Redis connection of the process is pinged. */
    WORKERS_REDIS_CHECK_MS: env.ms(1_000),
    /** Datasources of `database` steps: `{"name": {"url": "postgresql://...", "writable": false}}`. */
    WORKERS_DATASOURCES: DatasourcesJson,
  },
  database: createDatabase,
  async build(infra) {
    const { config, db, logger } = infra;
    const sql = sqlPool(serviceDatabaseUrl('workers', config.DATABASE_URL), 'workers', {
      poolSize: config.DATABASE_POOL_SIZE,
      statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS,
      settings: engineSqlSettings,
    });
    infra.onShutdown('postgres (engine pool)', () => sql.end(), ShutdownPriority.stores);
    const engine = new EngineRepository(db, config.WORKERS_QUEUE, sql, config.WORKERS_POISON_AFTER);
    const queue = stepQueue(config.WORKERS_QUEUE);
    const control = new ControlRepository(db, config.WORKERS_QUEUE);
    const producer = infra.queues.producer(queue);
    // A timed-out command on the producer's connection is reported here too; the caller already got it.
    producer.queue.on('error', (error) => logger.debug({ err: error }, 'queue producer error'));
    const dispatcher = new StepDispatcher(producer, config.WORKERS_REDIS_TIMEOUT_MS);
    // Every Redis connection of the process is watched: silent ones are replaced, commands time out.
    const redisWatch = new RedisWatch(logger, { timeoutMs: config.WORKERS_REDIS_TIMEOUT_MS, intervalMs: config.WORKERS_REDIS_CHECK_MS });
    redisWatch.watch('commands', () => infra.redis);
    redisWatch.watch('queue producer', async () => (await producer.queue.backend.client) as unknown as WatchedConnection);
    infra.onShutdown('redis watch', () => redisWatch.stop(), ShutdownPriority.intake);
    const cancels = new CancelBus(infra.redis, logger);
    const datasources = new Datasources(config.WORKERS_DATASOURCES, config.DATABASE_URL);
    infra.onShutdown('datasources', () => datasources.close(), ShutdownPriority.stores - 1);
    const workersRepository = new WorkersRepository(db);

    const serviceToken = config.WORKERS_API_KEY
      ? serviceApiKeyToken({ authUrl: config.AUTH_URL, apiKey: config.WORKERS_API_KEY, clientId: 'workers' })
      : undefined;
    const mesh = config.MESH_URL
      ? new MeshRouting(new MeshClient({ baseUrl: config.MESH_URL, token: serviceToken, timeoutMs: config.WORKERS_MESH_TIMEOUT_MS }))
      : undefined;

    if (infra.role !== 'api') {
      const workerId = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
      const executor = new StepExecutor(engine, dispatcher, cancels, datasources, logger, {
        workerId,
        leaseMs: config.WORKERS_LEASE_MS,
        defaultTimeoutMs: config.WORKERS_DEFAULT_TIMEOUT_MS,
        maxResponseBytes: config.WORKERS_MAX_RESPONSE_BYTES,
        allowPrivateUrls: config.WORKERS_ALLOW_PRIVATE_URLS,
        mesh,
      });
      // Chains of ready steps stop first, so that the queue's workers can finish their jobs.
      infra.onShutdown('eager dispatch', () => executor.drain(), ShutdownPriority.intake);
      await cancels.listen();
      infra.onShutdown('cancel bus', () => cancels.close(), ShutdownPriority.components);
      const worker = infra.queues.process(queue, (payload) => executor.process(payload.taskId, payload.attempt), { concurrency: config.WORKERS_CONCURRENCY });
      redisWatch.watch('cancel subscriber', () => cancels.connection, { commands: false });
      if (worker) {
        // BullMQ's own connections: no command timeout (BullMQ retries its commands); the blocking
        // one has BullMQ's watchdog once ready, but waits for good on a ready check nobody answers.
        const backend = worker.backend as unknown as { client: Promise<WatchedConnection>; blockingClient: Promise<WatchedConnection> | undefined };
        redisWatch.watch('queue worker', () => backend.client, { commands: false });
        redisWatch.watch('queue worker (blocking)', () => backend.blockingClient, { commands: false, ping: false });
      }
      await workersRepository.register({
        id: workerId,
        host: hostname(),
        pid: process.pid,
        concurrency: config.WORKERS_CONCURRENCY,
        taskTypes: ['http', 'agent', 'database'],
      });
      const heartbeat = setInterval(() => {
        workersRepository.heartbeat(workerId, cancels.active).catch((error) => logger.warn({ err: error }, 'heartbeat failed'));
      }, config.WORKERS_HEARTBEAT_MS);
      heartbeat.unref();
      const reaper = new Reaper(
        engine,
        dispatcher,
        infra.redis,
        logger,
        {
          intervalMs: config.WORKERS_REAPER_INTERVAL_MS,
          watchdogMs: config.WORKERS_WATCHDOG_MS,
          requeueAfterMs: config.WORKERS_REQUEUE_AFTER_MS,
          queue: config.WORKERS_QUEUE,
        },
        workerId,
        // Workers silent for a week are forgotten (they stay listed as dead until then).
        () => workersRepository.prune(7 * 24 * 3600 * 1000),
      );
      reaper.start();
      infra.onShutdown('reaper', () => reaper.stop(), ShutdownPriority.intake);
      infra.onShutdown(
        'worker registration',
        async () => {
          clearInterval(heartbeat);
          await workersRepository.stopped(workerId).catch(() => undefined);
        },
        ShutdownPriority.components,
      );
    }

    redisWatch.start();
    const health = { aliases: ['/api/v1/health'], extra: async () => ({ paused: (await control.paused()).paused }) };
    // A worker process serves health and metrics only: no API, so no token verifier either.
    if (infra.role === 'worker') return { health };
    const api = new ApiRouter(await infra.verifier());
    definitionRoutes(
      api,
      new DefinitionsService(new DefinitionsRepository(db), engine, dispatcher, control, {
        maxSteps: config.WORKERS_MAX_STEPS,
        maxDefinitionBytes: config.WORKERS_MAX_DEFINITION_BYTES,
        datasources: datasources.names(),
        meshRouting: mesh !== undefined,
        definitionsDir: config.WORKERS_DEFINITIONS_DIR,
      }),
    );
    runRoutes(api, new RunsService(new RunsRepository(db), engine, dispatcher, cancels));
    workerRoutes(api, workersRepository, config.WORKERS_DEAD_AFTER_MS);
    taskRoutes(api, new TasksService(new TasksRepository(db), engine, dispatcher, control, config.WORKERS_DEFAULT_TIMEOUT_MS));
    controlRoutes(api, control);
    return {
      routers: [{ basePath: '/api/v1', router: api }],
      health,
    };
  },
});
