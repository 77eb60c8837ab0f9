import './instrument';
import { environmentWithRole, serviceDatabaseUrl } from '@platform/config';
import { createRedis, migrateDatabase, waitForRedis } from '@platform/data';
import { exitOnStartupFailure, listen, stopOnSignals } from '@platform/service-kit';
import { createLogger } from '@platform/telemetry';
import { stopTelemetry } from '@platform/telemetry';
import { AUTH_VERSION, createAuthService } from './app';
import { loadAuthConfig } from './config';
import { createAuthDatabase } from './database';
import { keyRotationWorker, scheduleKeyRotation } from './signing-keys/key-rotation.queue';

async function main(): Promise<void> {
  const config = loadAuthConfig(environmentWithRole());
  const role = config.SERVICE_ROLE;
  const logger = createLogger('auth', AUTH_VERSION, config.LOG_LEVEL);

  const databaseUrl = serviceDatabaseUrl('auth', config.DATABASE_URL);
  if (config.MIGRATE_ON_START) await migrateDatabase('auth', databaseUrl);
  const redis = createRedis(config.REDIS_URL);
  await waitForRedis(redis, config.REDIS_URL);
  const db = createAuthDatabase(databaseUrl);

  const service = await createAuthService({ config, db, redis, logger, serveApi: role !== 'worker' });
  const rotationSchedule = await scheduleKeyRotation(config.REDIS_URL);
  const rotationWorker = role === 'api' ? undefined : keyRotationWorker(config.REDIS_URL, service.keys, service.audit);

  const running = await listen(service.app, {
    port: config.PORT,
    host: config.HOST,
    logger,
    closers: [
      { name: 'key rotation worker', close: () => rotationWorker?.close() },
      { name: 'key rotation schedule', close: () => rotationSchedule.close() },
      { name: 'service', close: () => service.close() },
      { name: 'postgres', close: () => db.$disconnect() },
      { name: 'redis', close: () => redis.quit() },
      { name: 'telemetry', close: () => stopTelemetry() },
    ],
  });
  stopOnSignals(running, logger);
  logger.info({ port: running.port, role }, 'auth listening');
}

main().catch(exitOnStartupFailure('auth'));
