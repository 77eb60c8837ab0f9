import type { TokenVerifier } from '@platform/jwt';
import { ApiRouter, createServiceApp, rateLimit } from '@platform/http';
import type { Express } from 'express';
import { capabilityRoutes } from './capabilities/capability.router';
import { cmsRoutes } from './cms/cms.router';
import { connectionRoutes } from './connections/connection.router';
import { SERVICE, type RegistryContext } from './context';
import { discoveryRoutes } from './discovery/discovery.router';
import { healthCheckRoutes } from './health-checks/health-check.router';
import { loadDistributionRoutes } from './load-balancing/load-distribution.router';
import { registryRoutes } from './registry/registry.router';
import { RegistryStream } from './registry/stream';
import { REGISTRY_VERSION } from './registry/registry.service';
import { toolCallRoutes } from './tool-calls/tool-call.router';

export interface RegistryApp {
  app: Express;
  /** Serves `/registry/stream` on the HTTP server the app listens on. */
  stream: RegistryStream;
}

/** The HTTP app of the registry; `main` and the tests both build it from a context. */
export function createApp(context: RegistryContext, verifier: TokenVerifier): RegistryApp {
  const { config, services, prisma, redis, logger } = context;
  const api = new ApiRouter(verifier);
  const before = [rateLimit({ redis, name: SERVICE, points: config.MCP_RATE_LIMIT, burst: config.MCP_RATE_LIMIT_BURST, windowSeconds: 60 })];
  connectionRoutes(api, services.connections, before);
  discoveryRoutes(api, services.discovery, before);
  healthCheckRoutes(api, context.operations, before);
  toolCallRoutes(api, context.operations, before);
  capabilityRoutes(api, services.capabilities, before);
  registryRoutes(api, services.registry, before);
  loadDistributionRoutes(api, services.loadDistribution, before);
  cmsRoutes(api, services.cms, before);
  const app = createServiceApp({
    name: SERVICE,
    logger,
    openapi: { title: 'MCP connection registry', version: REGISTRY_VERSION, description: 'Registers, supervises and health-checks MCP servers (spec 3).' },
    health: {
      checks: { database: () => prisma.$queryRawUnsafe('SELECT 1'), cache: () => redis.ping() },
      extra: () => services.registry.healthExtra(),
    },
    // Base path `/` (DESIGN.md): mounted at the root, so the document's paths have no double slash.
    routers: [{ basePath: '', router: api }],
    bodyLimit: config.BODY_LIMIT,
  });
  return { app, stream: new RegistryStream(verifier, context.events, logger) };
}
