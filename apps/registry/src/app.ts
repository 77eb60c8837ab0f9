import { ApiRouter, createServiceApp, rateLimit } from '@platform/http';
import { deadLetterRoutes, type TypedQueue } from '@platform/queues';
import { type Logger } from '@platform/telemetry';
import type { TokenVerifier } from '@platform/jwt';
import express, { type Express } from 'express';
import type { Redis } from 'ioredis';
import { AnalyticsService } from './analytics/analytics.service';
import { analyticsRoutes } from './analytics/analytics.router';
import { UsageCounter } from './analytics/usage-counter';
import { agentRoutes } from './agents/agents.router';
import { AgentsService } from './agents/agents.service';
import type { CertificationQueue } from './certifications/certification-queue';
import { certificationRoutes } from './certifications/certifications.router';
import { CertificationsService } from './certifications/certifications.service';
import type { RegistryConfig } from './config';
import type { Db } from './database';
import { captureRawManifest } from './manifests/raw-manifest';
import type { RouteContext } from './routes';
import { schemaRoutes } from './schemas/schemas.router';
import { searchRoutes } from './search/search.router';
import { versionRoutes } from './versions/versions.router';
import { VersionsService } from './versions/versions.service';

export const REGISTRY_API_VERSION = '1.0.0';

export type AppConfig = Pick<
  RegistryConfig,
  'REGISTRY_RATE_LIMIT' | 'REGISTRY_RATE_BURST' | 'REGISTRY_RATE_WINDOW' | 'REGISTRY_MANIFEST_MAX_BYTES' | 'REGISTRY_PUBLIC_URL' | 'BODY_LIMIT'
>;

export interface RegistryDeps {
  config: AppConfig;
  logger: Logger;
  db: Db;
  redis: Redis;
  verifier: TokenVerifier;
  certificationQueue: TypedQueue<CertificationQueue['payload']>;
}

export interface RegistryServices {
  agents: AgentsService;
  versions: VersionsService;
  certifications: CertificationsService;
  analytics: AnalyticsService;
  usage: UsageCounter;
}

export function createServices(deps: Pick<RegistryDeps, 'db' | 'logger' | 'certificationQueue'> & { usageFlushMs?: number }): RegistryServices {
  const agents = new AgentsService(deps.db);
  return {
    agents,
    versions: new VersionsService(deps.db, agents),
    certifications: new CertificationsService(deps.db, agents, deps.certificationQueue, deps.logger),
    analytics: new AnalyticsService(deps.db, agents),
    usage: new UsageCounter(deps.db, deps.logger, deps.usageFlushMs),
  };
}

/**
 * The registry's HTTP app (spec 2, "Registry API"). The publish endpoints read their body raw,
 * before the shared JSON parser, so manifests are stored byte for byte.
 */
export function createApp(deps: RegistryDeps, services: RegistryServices = createServices(deps)): { app: Express; services: RegistryServices } {
  const { config } = deps;
  const ctx: RouteContext = {
    limit: [
      rateLimit({ redis: deps.redis, name: 'registry', points: config.REGISTRY_RATE_LIMIT, burst: config.REGISTRY_RATE_BURST, windowSeconds: config.REGISTRY_RATE_WINDOW }),
    ],
    usage: services.usage,
  };
  const api = new ApiRouter(deps.verifier);
  agentRoutes(api, services.agents, services.versions, ctx);
  versionRoutes(api, services.agents, services.versions, ctx);
  searchRoutes(api, deps.db, ctx);
  certificationRoutes(api, services.certifications, ctx);
  analyticsRoutes(api, services.analytics, ctx);
  schemaRoutes(api, config.REGISTRY_PUBLIC_URL);
  deadLetterRoutes(api, [deps.certificationQueue.queue], 'registry:admin');

  const service = createServiceApp({
    name: 'registry',
    logger: deps.logger,
    openapi: {
      title: 'Registry API',
      version: REGISTRY_API_VERSION,
      description: 'Central registry of agents by namespace and name: versions, manifests, search, certification and usage analytics.',
    },
    health: {
      checks: {
        database: () => deps.db.$queryRaw`SELECT 1`,
        cache: () => deps.redis.ping(),
      },
    },
    routers: [{ basePath: '/api/v1', router: api }],
    bodyLimit: config.BODY_LIMIT,
  });
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', 'loopback');
  app.use(captureRawManifest(config.REGISTRY_MANIFEST_MAX_BYTES));
  app.use(service);
  return { app, services };
}
