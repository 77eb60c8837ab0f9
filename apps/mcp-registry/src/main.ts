import './instrument';
import { environmentWithRole, serviceDatabaseUrl } from '@platform/config';
import { migrateDatabase } from '@platform/data';
import { createServiceApp } from '@platform/http';
import { createTokenVerifier, exitOnStartupFailure, listen, stopOnSignals } from '@platform/service-kit';
import { createLogger } from '@platform/telemetry';
import { stopTelemetry } from '@platform/telemetry';
import { createApp } from './app';
import { loadMcpRegistryConfig } from './config';
import { createRegistryContext, SERVICE } from './context';
import { REGISTRY_VERSION } from './registry/registry.service';

/** Composition root: config, migrations, the context, then the API (roles all/api) and the check worker (all/worker). */
async function main(): Promise<void> {
  const config = loadMcpRegistryConfig(environmentWithRole());
  const logger = createLogger(SERVICE, REGISTRY_VERSION, config.LOG_LEVEL);
  if (config.MIGRATE_ON_START) await migrateDatabase(SERVICE, serviceDatabaseUrl(SERVICE, config.DATABASE_URL));
  const context = createRegistryContext(config, logger);
  await context.start();
  const { verifier, revocations } = await createTokenVerifier(config, context.redis);
  const role = config.SERVICE_ROLE;
  const registry = role === 'worker' ? undefined : createApp(context, verifier);
  // A worker serves only its health and metrics, for probes.
  const app = registry?.app ?? createServiceApp({ name: SERVICE, logger, openapi: { title: SERVICE, version: REGISTRY_VERSION }, health: { checks: { database: () => context.prisma.$queryRawUnsafe('SELECT 1'), cache: () => context.redis.ping() } }, routers: [] });
  const service = await listen(app, {
    port: config.PORT,
    host: config.HOST,
    logger,
    onServer: (server) => registry?.stream.attach(server),
    closers: [
      { name: 'stream', close: () => registry?.stream.close() },
      { name: 'revocations', close: () => revocations.stop() },
      { name: 'registry', close: () => context.stop() },
      { name: 'telemetry', close: () => stopTelemetry() },
    ],
  });
  stopOnSignals(service, logger);
  logger.info({ port: service.port, role }, 'mcp-registry listening');
}

main().catch(exitOnStartupFailure(SERVICE));
