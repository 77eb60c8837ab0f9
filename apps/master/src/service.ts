import { serviceApiKeyToken, TokenExchanger } from '@platform/clients';
import { env } from '@platform/config';
import { ApiRouter, rateLimit } from '@platform/http';
import { SECURITY_CAPABILITIES } from '@platform/manifest';
import { defineService } from '@platform/service-kit';
import { z } from 'zod';
import { agentRoutes } from './agents/agents.router';
import { AgentsRepository } from './agents/agents.repository';
import { AgentsService } from './agents/agents.service';
import { certificationRoutes } from './certification/certification.router';
import { CertificationRepository } from './certification/certification.repository';
import { CertificationService } from './certification/certification.service';
import { createDatabase } from './database';
import { EventsRepository } from './events/events.repository';
import { federationSyncQueue } from './federation/federation-queue';
import { federationRoutes } from './federation/federation.router';
import { FederationRepository } from './federation/federation.repository';
import { FederationService } from './federation/federation.service';
import { PeerCalls } from './federation/peer-calls';
import { TokenBox } from './federation/token-box';
import { governanceRoutes } from './governance/governance.router';
import { GovernanceRepository } from './governance/governance.repository';
import { GovernanceService } from './governance/governance.service';
import { BUILT_IN_POLICIES, parseOperatorPolicies } from './governance/policies';
import { monitoringRoutes } from './monitoring/monitoring.router';
import { MonitoringRepository } from './monitoring/monitoring.repository';
import { MonitoringService } from './monitoring/monitoring.service';
import { executionSyncQueue } from './orchestration/execution-queue';
import { orchestrationRoutes } from './orchestration/orchestration.router';
import { OrchestrationRepository } from './orchestration/orchestration.repository';
import { OrchestrationService } from './orchestration/orchestration.service';
import { specificationRoutes } from './specification/specification.router';
import { SpecificationService } from './specification/specification.service';
import { actingFor } from './upstream/acting-for';
import { HttpRegistryApi } from './upstream/registry-api';
import { HttpWorkersApi } from './upstream/workers-api';

export const MASTER_API_VERSION = '0.1.9';
const DEVELOPMENT_SECRET = 'development-only-master-secret';

export const masterService = defineService({
  name: 'master',
  version: MASTER_API_VERSION,
  port: 3006,
  openapi: {
    title: 'Master API',
    description: 'The control plane of agents: manifests, validation, certification, governance, multi-agent orchestration, federation and monitoring.',
  },
  config: {
    /** Where the API is mounted; "" serves it at the root (the spec's local development server). */
    BASE_PATH: z
      .string()
      .regex(/^(\/[A-Za-z0-9._~-]+)*$/, 'empty, or a path such as /api/v1 without a trailing slash')
      .default('/api/v1'),
    REGISTRY_URL: z.url().default('http://127.0.0.1:3004'),
    WORKERS_URL: z.url().default('http://127.0.0.1:3003'),
    MASTER_UPSTREAM_TIMEOUT_MS: env.ms(5000),
    MASTER_RATE_LIMIT: env.int(500, { min: 1 }),
    MASTER_RATE_BURST: env.int(750, { min: 1 }),
    MASTER_RATE_WINDOW: env.seconds(60),
    /** Operator policies: a JSON array of {id, name, description?, severity?, appliesTo?, rule, path?, message} (JSON Logic). */
    MASTER_POLICIES: z.string().max(1_000_000).default('[]'),
    /** The security capabilities this platform's runtime offers to workflows. */
    MASTER_AVAILABLE_CAPABILITIES: env.list(SECURITY_CAPABILITIES.join(',')).pipe(z.array(z.enum(SECURITY_CAPABILITIES))),
    MASTER_FEDERATION_SYNC_SECONDS: env.seconds(300),
    MASTER_FEDERATION_AUDIENCE: z.string().min(1).default('agent-platform'),
    MASTER_FEDERATION_MAX_AGENTS: env.int(10_000, { min: 1, max: 100_000 }),
    MASTER_FEDERATION_TIMEOUT_MS: env.ms(10_000),
    /** Encrypts the peers' join tokens at rest; required in production. */
    MASTER_SECRET_KEY: z.string().min(16).default(DEVELOPMENT_SECRET),
    /**
     * The master's own API key (issued by auth): the actor of the tokens delegated for users (needs
     * `tokens:exchange`) and the token of calls made for no user (the scheduled execution sync).
     */
    MASTER_API_KEY: z.string().min(1).optional(),
    MASTER_EXECUTION_SYNC_SECONDS: env.seconds(15),
  },
  database: createDatabase,
  async build(infra) {
    const { config, db, logger } = infra;
    if (config.NODE_ENV === 'production' && config.MASTER_SECRET_KEY === DEVELOPMENT_SECRET) {
      throw new Error('Invalid configuration: MASTER_SECRET_KEY must be set in production');
    }
    const policies = [...BUILT_IN_POLICIES, ...parseOperatorPolicies(config.MASTER_POLICIES)];
    const api = new ApiRouter(await infra.verifier());
    const limit = [
      rateLimit({
        redis: infra.redis,
        name: 'master',
        points: config.MASTER_RATE_LIMIT,
        burst: config.MASTER_RATE_BURST,
        windowSeconds: config.MASTER_RATE_WINDOW,
      }),
    ];

    const events = new EventsRepository(db);
    const agentsRepository = new AgentsRepository(db, events);
    const agents = new AgentsService(agentsRepository);
    const token = config.MASTER_API_KEY ? serviceApiKeyToken({ authUrl: config.AUTH_URL, apiKey: config.MASTER_API_KEY, clientId: 'master' }) : undefined;
    const registry = new HttpRegistryApi({ url: config.REGISTRY_URL, timeoutMs: config.MASTER_UPSTREAM_TIMEOUT_MS, token });
    const workers = new HttpWorkersApi({ url: config.WORKERS_URL, timeoutMs: config.MASTER_UPSTREAM_TIMEOUT_MS, token });
    // Runs and publications made for a user carry a token auth delegated for them (RFC 8693), the master's key as the actor.
    const actFor = actingFor(
      token ? new TokenExchanger({ authUrl: config.AUTH_URL, serviceToken: token, timeoutMs: config.MASTER_UPSTREAM_TIMEOUT_MS }) : undefined,
    );
    // The record of the policies in force is informational (the API serves them from memory): a
    // failed write, such as a deadlock between instances starting together, must not stop start-up.
    if (infra.role !== 'worker')
      await new GovernanceRepository(db).record(policies).catch((error: unknown) => logger.warn({ err: error }, 'the policies in force were not recorded'));

    const federation = new FederationService(
      new FederationRepository(db, events),
      new PeerCalls({ timeoutMs: config.MASTER_FEDERATION_TIMEOUT_MS, maxBytes: 16 * 1024 * 1024, allowPrivate: config.OUTBOUND_ALLOW_PRIVATE }),
      new TokenBox(config.MASTER_SECRET_KEY),
      { audience: config.MASTER_FEDERATION_AUDIENCE, maxAgents: config.MASTER_FEDERATION_MAX_AGENTS },
      logger,
    );
    const syncQueue = infra.queues.producer(federationSyncQueue);
    const syncWorker = infra.queues.process(federationSyncQueue, (payload) => (payload.peerId ? federation.syncPeer(payload.peerId) : federation.syncAll()), {
      concurrency: 1,
    });
    if (syncWorker) {
      await syncQueue.queue.upsertJobScheduler(
        'sync-all-peers',
        { every: config.MASTER_FEDERATION_SYNC_SECONDS * 1000 },
        { name: 'sync', data: { payload: {} }, opts: { attempts: 1 } },
      );
    }

    const orchestrationRepository = new OrchestrationRepository(db, events);
    const orchestration = new OrchestrationService(orchestrationRepository, agentsRepository, workers, config.MASTER_AVAILABLE_CAPABILITIES, logger, actFor);
    const executionQueue = infra.queues.producer(executionSyncQueue);
    // Executions are mirrored on read; with a service API key they are also mirrored on a schedule.
    const executionWorker = token ? infra.queues.process(executionSyncQueue, () => orchestration.syncUnfinished(), { concurrency: 1 }) : undefined;
    if (executionWorker) {
      await executionQueue.queue.upsertJobScheduler(
        'sync-unfinished',
        { every: config.MASTER_EXECUTION_SYNC_SECONDS * 1000 },
        { name: 'sync', data: { payload: {} }, opts: { attempts: 1 } },
      );
    }

    const probes = {
      database: () => db.$queryRaw`SELECT 1`.then(() => true),
      cache: () => infra.redis.ping().then(() => true),
      registry: () => registry.ready(),
      workers: () => workers.ready(),
    };
    agentRoutes(api, agents, limit);
    orchestrationRoutes(api, orchestration, limit);
    specificationRoutes(api, new SpecificationService(), limit);
    certificationRoutes(api, new CertificationService(new CertificationRepository(db, events), agents, registry, actFor), limit);
    governanceRoutes(api, new GovernanceService(policies, agents), limit);
    federationRoutes(api, federation, limit);
    monitoringRoutes(api, new MonitoringService(new MonitoringRepository(db), events, [syncQueue.queue, executionQueue.queue], probes), limit);

    return {
      routers: [{ basePath: config.BASE_PATH, router: api }],
      health: {
        extra: async () => ({ services: { registry: (await registry.ready()) ? 'up' : 'down', workers: (await workers.ready()) ? 'up' : 'down' } }),
      },
    };
  },
});
