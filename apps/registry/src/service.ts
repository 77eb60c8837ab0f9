import { env } from '@platform/config';
import { ApiRouter, rateLimit } from '@platform/http';
import { deadLetterRoutes } from '@platform/queues';
import { defineService, ShutdownPriority } from '@platform/service-kit';
import { z } from 'zod';
import { AgentsRepository } from './agents/agents.repository';
import { agentRoutes } from './agents/agents.router';
import { AgentsService } from './agents/agents.service';
import { AnalyticsRepository } from './analytics/analytics.repository';
import { analyticsRoutes } from './analytics/analytics.router';
import { AnalyticsService } from './analytics/analytics.service';
import { UsageCounter } from './analytics/usage-counter';
import { certificationQueue } from './certifications/certification-queue';
import { recordFailedCertifications } from './certifications/certification-worker';
import { CertificationsRepository } from './certifications/certifications.repository';
import { certificationRoutes } from './certifications/certifications.router';
import { CertificationsService } from './certifications/certifications.service';
import { createDatabase } from './database';
import { captureRawManifest } from './raw-manifest';
import type { RouteContext } from './routes';
import { schemaRoutes } from './schemas/schemas.router';
import { searchRoutes } from './search/search.router';
import { SearchService } from './search/search.service';
import { VersionsRepository } from './versions/versions.repository';
import { versionRoutes } from './versions/versions.router';
import { VersionsService } from './versions/versions.service';

/**
 * The registry (spec 2, "Registry API"): agents by namespace and name, versions and their
 * manifests, search, certification (queue `registry.certifications`) and usage analytics.
 * The publish endpoints read their body raw, before the shared JSON parser, so manifests are
 * stored byte for byte.
 */
export const registryService = defineService({
  name: 'registry',
  version: '1.0.0',
  port: 3004,
  openapi: {
    title: 'Registry API',
    description: 'Central registry of agents by namespace and name: versions, manifests, search, certification and usage analytics.',
  },
  config: {
    /** Spec 2's agent-service limit: requests per minute per caller, and the burst above it. */
    REGISTRY_RATE_LIMIT: env.int(500, { min: 1 }),
    REGISTRY_RATE_BURST: env.int(750, { min: 1 }),
    REGISTRY_RATE_WINDOW: env.seconds(60),
    /** Public base URL of this service (the `$id` of the published manifest JSON Schema). */
    REGISTRY_PUBLIC_URL: z.string().url().default('http://127.0.0.1:3004'),
    /** Largest manifest accepted for publishing, in bytes. */
    REGISTRY_MANIFEST_MAX_BYTES: env.int(1024 * 1024, { min: 1 }),
    /** Certification jobs processed at once by one worker. */
    REGISTRY_CERTIFICATION_CONCURRENCY: env.int(2, { min: 1 }),
    /** Refuse (400) manifests whose checksum or signature does not verify; otherwise they are published with a warning. */
    REGISTRY_REQUIRE_VERIFIED_MANIFESTS: env.bool(false),
    /** Usage counters are added up in memory and written this often (ms); 0 writes each event at once. */
    REGISTRY_USAGE_FLUSH_MS: env.int(1000, { min: 0 }),
  },
  database: createDatabase,
  async build(infra) {
    const { config, db, logger } = infra;
    const certificationJobs = infra.queues.producer(certificationQueue);
    const agents = new AgentsService(new AgentsRepository(db));
    const versions = new VersionsService(new VersionsRepository(db), agents, { requireVerifiedManifests: config.REGISTRY_REQUIRE_VERIFIED_MANIFESTS });
    const certifications = new CertificationsService(new CertificationsRepository(db), agents, certificationJobs, logger);
    const analytics = new AnalyticsRepository(db);
    const usage = new UsageCounter(analytics, logger, config.REGISTRY_USAGE_FLUSH_MS);
    infra.onShutdown('usage counters', () => usage.flush(), ShutdownPriority.components);

    const worker = infra.queues.process(certificationQueue, (payload) => certifications.process(payload.certificationId), {
      concurrency: config.REGISTRY_CERTIFICATION_CONCURRENCY,
    });
    if (worker) recordFailedCertifications(worker, certifications, logger);

    const ctx: RouteContext = {
      limit: [
        rateLimit({
          redis: infra.redis,
          name: 'registry',
          points: config.REGISTRY_RATE_LIMIT,
          burst: config.REGISTRY_RATE_BURST,
          windowSeconds: config.REGISTRY_RATE_WINDOW,
        }),
      ],
      usage,
    };
    const api = new ApiRouter(await infra.verifier());
    agentRoutes(api, agents, ctx);
    versionRoutes(api, versions, ctx);
    searchRoutes(api, new SearchService(agents), ctx);
    certificationRoutes(api, certifications, ctx);
    analyticsRoutes(api, new AnalyticsService(analytics, agents), ctx);
    schemaRoutes(api, config.REGISTRY_PUBLIC_URL);
    deadLetterRoutes(api, [certificationJobs.queue], 'registry:admin');

    return {
      routers: [{ basePath: '/api/v1', router: api }],
      beforeBody: [captureRawManifest(config.REGISTRY_MANIFEST_MAX_BYTES)],
      /** Reached by tests: the usage buffer and the certification producer. */
      usage,
      certificationJobs,
    };
  },
});
