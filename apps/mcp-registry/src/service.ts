import { env, type baseEnvShape } from '@platform/config';
import { ApiRouter, rateLimit } from '@platform/http';
import { defineService, ShutdownPriority } from '@platform/service-kit';
import { z } from 'zod';
import { capabilityRoutes } from './capabilities/capabilities.router';
import { cmsRoutes } from './cms/cms.router';
import { connectionRoutes } from './connections/connections.router';
import { createRegistryContext, SERVICE } from './context';
import { createDatabase } from './database';
import { discoveryRoutes } from './discovery/discovery.router';
import { healthCheckRoutes } from './health-checks/health-checks.router';
import { loadDistributionRoutes } from './load-balancing/load-balancing.router';
import { registryRoutes } from './registry/registry.router';
import { REGISTRY_VERSION } from './registry/registry.service';
import { createRegistryStream } from './registry/stream';
import { toolCallRoutes } from './tool-calls/tool-calls.router';

/** The MCP registry's own env fields (beside the common ones of `@platform/config`). */
export const mcpRegistryConfig = {
  /** Commands a stdio connection may run (names looked up on the child's PATH, or absolute paths). */
  MCP_STDIO_ALLOWED_COMMANDS: env.list('mcp-server-everything'),
  /** Directories searched for allowed commands, before /usr/local/bin:/usr/bin:/bin. */
  MCP_STDIO_PATH: env.list(''),
  /** Data segment limit (RLIMIT_DATA) of a stdio server, in MiB; 0 for none. */
  MCP_STDIO_MEMORY_MB: env.int(1024, { min: 0 }),
  /** CPU time limit (RLIMIT_CPU) of a stdio server process, in seconds; 0 for none. */
  MCP_STDIO_CPU_SECONDS: env.int(3600, { min: 0 }),
  /** Where stdio servers get their own working directories. */
  MCP_STDIO_WORK_ROOT: z.string().optional(),
  /** Checks slower than this fraction of their timeout make a connection `degraded`. */
  MCP_DEGRADED_THRESHOLD: z.coerce.number().min(0.05).max(1).default(0.5),
  /** Parallel checks of a batch, and of the scheduled-check worker. */
  MCP_CHECK_CONCURRENCY: env.int(16, { min: 1 }),
  MCP_DEFAULT_CAPACITY: env.int(10, { min: 1 }),
  /** A session (and stdio process) unused for this long is closed; 0 keeps it until disconnect. */
  MCP_SESSION_IDLE_SECONDS: env.int(900, { min: 0 }),
  /** Queue of scheduled checks; `<name>.on-demand` carries the `api` role's checks and tool calls. */
  MCP_HEALTH_QUEUE: z.string().default('mcp-registry.health-checks'),
  /** Redis prefix of the stream fan-out channel, live load counters and locks. */
  MCP_REDIS_PREFIX: z.string().default('mcp-registry'),
  /** Requests per minute per caller (engines' limit of spec 2) and the burst above it. */
  MCP_RATE_LIMIT: env.int(200, { min: 1 }),
  MCP_RATE_LIMIT_BURST: env.int(300, { min: 1 }),
  /** Open `/registry/stream` sockets one caller (token subject) may hold on a replica. */
  MCP_STREAM_MAX_PER_USER: env.int(20, { min: 1 }),
  /** Schedule checks for every enabled connection on start (tests sharing a database turn it off). */
  MCP_RECONCILE_SCHEDULES: env.bool(true),
};

/**
 * The MCP connection registry (spec 3): registers, supervises and health-checks MCP servers.
 * The `worker` role runs the scheduled checks and the forwarded on-demand operations; the `api`
 * role forwards its checks and tool calls to workers through `<MCP_HEALTH_QUEUE>.on-demand`.
 */
export const mcpRegistryService = defineService({
  name: SERVICE,
  version: REGISTRY_VERSION,
  port: 3000,
  openapi: { title: 'MCP connection registry', description: 'Registers, supervises and health-checks MCP servers (spec 3).' },
  config: mcpRegistryConfig,
  database: createDatabase,
  async build(infra) {
    const { config, logger } = infra;
    const context = createRegistryContext(config, logger, infra.db, infra.redis, infra.queues);
    await context.start();
    infra.onShutdown('registry', () => context.stop(), ShutdownPriority.components);
    const { services } = context;

    const verifier = await infra.verifier();
    const api = new ApiRouter(verifier);
    const before = [rateLimit({ redis: infra.redis, name: SERVICE, points: config.MCP_RATE_LIMIT, burst: config.MCP_RATE_LIMIT_BURST, windowSeconds: 60 })];
    connectionRoutes(api, services.connections, before);
    discoveryRoutes(api, services.discovery, services.connections, before);
    healthCheckRoutes(api, context.operations, services.connections, before);
    toolCallRoutes(api, context.operations, services.connections, before);
    capabilityRoutes(api, services.capabilities, services.connections, before);
    registryRoutes(api, services.registry, services.connections, before);
    loadDistributionRoutes(api, services.loadDistribution, services.connections, before);
    cmsRoutes(api, services.cms, before);
    const stream = createRegistryStream(verifier, context.events, logger, {
      maxPerUser: config.MCP_STREAM_MAX_PER_USER,
      ownerOf: (connectionId) => services.connections.find(connectionId),
    });
    infra.onShutdown('stream', () => stream.close(), ShutdownPriority.intake);

    return {
      // Base path `/` (DESIGN.md): mounted at the root, so the document's paths have no double slash.
      routers: [{ basePath: '', router: api }],
      health: infra.role === 'worker' ? {} : { extra: () => services.registry.healthExtra() },
      onListening: (server) => stream.attach(server),
      /** Reached by tests: the supervisor, the scheduler, the process records. */
      context,
    };
  },
});

export type McpRegistryConfig = Readonly<z.output<z.ZodObject<typeof baseEnvShape & { PORT: ReturnType<typeof env.port> } & typeof mcpRegistryConfig>>>;
