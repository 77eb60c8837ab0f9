import './instrument';
import { environmentWithRole, serviceDatabaseUrl } from '@platform/config';
import { createRedis, migrateDatabase, waitForRedis } from '@platform/data';
import { TypedQueue } from '@platform/queues';
import { closeInOrder, createTokenVerifier, exitOnStartupFailure, listen, stopOnSignals, type Closer } from '@platform/service-kit';
import { createLogger } from '@platform/telemetry';
import { stopTelemetry } from '@platform/telemetry';
import { createApp, createServices, REGISTRY_API_VERSION } from './app';
import { certificationQueue } from './certifications/certification-queue';
import { startCertificationWorker } from './certifications/certification-worker';
import { loadRegistryConfig } from './config';
import { createDb } from './database';

/**
 * Composition root: config, Postgres (migrated on start), Redis, the token verifier, the
 * certification queue and its worker, the HTTP API. SERVICE_ROLE=api serves HTTP only,
 * SERVICE_ROLE=worker processes certification jobs only, the default does both.
 */
async function main(): Promise<void> {
  const config = loadRegistryConfig(environmentWithRole());
  const logger = createLogger('registry', REGISTRY_API_VERSION, config.LOG_LEVEL);
  const databaseUrl = serviceDatabaseUrl('registry', config.DATABASE_URL);
  if (config.MIGRATE_ON_START) await migrateDatabase('registry', databaseUrl);
  const db = createDb(databaseUrl, config.REGISTRY_DB_POOL_SIZE);
  await db.$queryRaw`SELECT 1`;
  const redis = createRedis(config.REDIS_URL);
  await waitForRedis(redis, config.REDIS_URL);
  const queue = new TypedQueue(certificationQueue, config.REDIS_URL);
  const services = createServices({ db, logger, certificationQueue: queue, usageFlushMs: config.REGISTRY_USAGE_FLUSH_MS });
  const worker =
    config.SERVICE_ROLE === 'api'
      ? undefined
      : startCertificationWorker({ redisUrl: config.REDIS_URL, service: services.certifications, logger, concurrency: config.REGISTRY_CERTIFICATION_CONCURRENCY });

  const closers: Closer[] = [
    ...(worker ? [{ name: 'certification worker', close: () => worker.close() }] : []),
    { name: 'usage counters', close: () => services.usage.flush() },
    { name: 'certification queue', close: () => queue.close() },
    { name: 'postgres', close: () => db.$disconnect() },
    { name: 'redis', close: () => redis.quit() },
    { name: 'telemetry', close: () => stopTelemetry() },
  ];

  if (config.SERVICE_ROLE === 'worker') {
    logger.info('registry worker processing registry.certifications');
    stopOnSignals({ stop: () => closeInOrder(closers, logger) }, logger);
    return;
  }

  const { verifier, revocations } = await createTokenVerifier(config, redis);
  const { app } = createApp({ config, logger, db, redis, verifier, certificationQueue: queue }, services);
  const service = await listen(app, { port: config.PORT, host: config.HOST, logger, closers: [{ name: 'revocations', close: () => revocations.stop() }, ...closers] });
  stopOnSignals(service, logger);
  logger.info({ port: service.port, role: config.SERVICE_ROLE }, 'registry listening');
}

main().catch(exitOnStartupFailure('registry'));
