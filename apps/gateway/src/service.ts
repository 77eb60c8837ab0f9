import { env, serviceDatabaseUrl } from '@platform/config';
import {
  AuthClient,
  GitLabScmClient,
  JsonApiCmsClient,
  keepAliveTransport,
  MasterClient,
  McpRegistryClient,
  MeshClient,
  RegistryClient,
  serviceApiKeyToken,
  delegatedToken,
  TokenExchanger,
  TracingClient,
  WorkersClient,
  WorkflowEngineClient,
} from '@platform/clients';
import { sqlPool } from '@platform/data';
import { ApiRouter, createRateLimiter } from '@platform/http';
import { defineService, ShutdownPriority } from '@platform/service-kit';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { ApiKeyExchange } from './access/api-keys';
import { gatewayAccess, VerificationMemo } from './access/gateway-access';
import { AgentsRepository } from './agents/agents.repository';
import { agentRoutes } from './agents/agents.router';
import { AgentsService } from './agents/agents.service';
import { KubernetesDeployer, loadKubeConfig, NoneDeployer, type Deployer } from './agents/deployers';
import { cmsRoutes } from './cms/cms.router';
import { CmsService } from './cms/cms.service';
import { siteQueue } from './cms/sites.queue';
import { SitesRepository } from './cms/sites.repository';
import { consoleConfig, consoleFeature } from './console';
import { createDatabase } from './database';
import { modelConfig, modelFeature } from './models';
import { discoveryRoutes } from './discovery/discovery.router';
import { platformConfig, platformFeature } from './platform';
import { DiscoveryService } from './discovery/discovery.service';
import { ReplyHub } from './replies/reply-hub';
import { replyRoutes } from './replies/replies.router';
import { scmRoutes } from './scm/scm.router';
import { ScmService } from './scm/scm.service';
import { studioTaskQueue } from './studio/studio.queue';
import { StudioRepository } from './studio/studio.repository';
import { studioRoutes } from './studio/studio.router';
import { StudioService } from './studio/studio.service';
import { WorkflowsRepository } from './workflows/workflows.repository';
import { workflowRoutes } from './workflows/workflows.router';
import { WorkflowsService } from './workflows/workflows.service';

const BASE_PATH = '/api/v1';
const url = (fallback: string) => z.string().url().default(fallback);
const optionalUrl = z.string().url().optional();

/**
 * The unified gateway (spec 2, "Gateway API", 1.0.0): one entry point with a platform token or an
 * API key, rate limited per key, that composes the other services through their public APIs.
 */
export const gatewayService = defineService({
  name: 'gateway',
  version: '1.0.0',
  port: 3002,
  openapi: {
    title: 'Gateway API',
    description:
      'The single entry point: agents created, deployed, registered and traced in one call; workflows, CMS content, coding sessions, source control and discovery.',
  },
  config: {
    GATEWAY_RATE_LIMIT: env.int(1000, { min: 1 }),
    GATEWAY_RATE_BURST: env.int(1500, { min: 1 }),
    GATEWAY_RATE_WINDOW: env.seconds(60),
    /** This gateway as agents reach it (reply URLs). */
    GATEWAY_PUBLIC_URL: url('http://127.0.0.1:3002'),
    /** Signs reply URLs; every replica needs the same one (a random one per process otherwise). */
    GATEWAY_REPLY_SECRET: z.string().min(16).optional(),
    /** The gateway's own API key: the actor of delegated tokens (needs `tokens:exchange`) and background jobs' token; without it the caller's token is forwarded. */
    GATEWAY_API_KEY: z.string().min(8).optional(),
    /** `client_id` sent with API keys exchanged at auth. */
    GATEWAY_CLIENT_ID: z.string().min(1).default('gateway'),
    GATEWAY_API_KEY_CACHE_SIZE: env.int(10_000, { min: 1 }),
    /** Renew an exchanged token this long before it expires. */
    GATEWAY_TOKEN_RENEW_MS: env.ms(60_000),
    GATEWAY_UPSTREAM_TIMEOUT_MS: env.ms(10_000),
    GATEWAY_EXECUTE_TIMEOUT_MS: env.ms(30_000),
    GATEWAY_STUDIO_TASK_TIMEOUT_MS: env.ms(600_000),
    GATEWAY_DEPLOYER: z.enum(['none', 'kubernetes']).default('none'),
    /** The Kubernetes API server; without it, `KUBECONFIG`, else the pod's service account. */
    GATEWAY_K8S_API_URL: optionalUrl,
    /** CA bundle for GATEWAY_K8S_API_URL (the service account's CA by default). */
    GATEWAY_K8S_CA_FILE: z.string().optional(),
    KUBECONFIG: z.string().optional(),
    /** Set by Kubernetes in every pod. */
    KUBERNETES_SERVICE_HOST: z.string().optional(),
    GATEWAY_K8S_NAMESPACE: z
      .string()
      .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/)
      .max(63)
      .default('agents'),
    /** Bearer token for GATEWAY_K8S_API_URL; the service account's token file (re-read as it rotates) by default. */
    GATEWAY_K8S_TOKEN: z.string().optional(),
    GATEWAY_DEFAULT_IMAGE: z.string().optional(),
    REGISTRY_URL: url('http://127.0.0.1:3004'),
    MASTER_URL: url('http://127.0.0.1:3006'),
    MASTER_BASE_PATH: z.string().default('/api/v1'),
    MESH_URL: url('http://127.0.0.1:3005'),
    TRACING_URL: url('http://127.0.0.1:6006'),
    WORKERS_URL: url('http://127.0.0.1:3003'),
    WORKFLOW_ENGINE_URL: url('http://127.0.0.1:3090'),
    MCP_REGISTRY_URL: url('http://127.0.0.1:3000'),
    LOCAL_MODELS_URL: url('http://127.0.0.1:3011'),
    CMS_URL: optionalUrl,
    CMS_API_KEY: z.string().optional(),
    SCM_URL: optionalUrl,
    SCM_TOKEN: z.string().optional(),
    ...consoleConfig,
    ...platformConfig,
    ...modelConfig,
  },
  database: createDatabase,
  async build(infra) {
    const { config, db, logger } = infra;
    const timeoutMs = config.GATEWAY_UPSTREAM_TIMEOUT_MS;
    const serviceToken = config.GATEWAY_API_KEY
      ? serviceApiKeyToken({ authUrl: config.AUTH_URL, apiKey: config.GATEWAY_API_KEY, clientId: config.GATEWAY_CLIENT_ID })
      : undefined;
    const ownToken = async () => serviceToken?.();
    // Calls made for a user carry a token delegated by auth (the user's, the gateway in `act`); the
    // gateway's key is the actor, so without one the caller's own token is forwarded instead.
    const exchanger = serviceToken ? new TokenExchanger({ authUrl: config.AUTH_URL, serviceToken, timeoutMs }) : undefined;
    const delegate = async (userToken: string) => (exchanger ? ((await delegatedToken(exchanger, userToken)()) ?? userToken) : userToken);
    const clients = { timeoutMs, transport: keepAliveTransport() };
    const registry = new RegistryClient({ baseUrl: config.REGISTRY_URL, ...clients });
    const master = new MasterClient({ baseUrl: config.MASTER_URL, basePath: config.MASTER_BASE_PATH, ...clients });
    const mesh = new MeshClient({ baseUrl: config.MESH_URL, ...clients });
    const tracing = new TracingClient({ baseUrl: config.TRACING_URL, ...clients });
    const workers = new WorkersClient({ baseUrl: config.WORKERS_URL, ...clients });
    const workflowEngine = new WorkflowEngineClient({ baseUrl: config.WORKFLOW_ENGINE_URL, ...clients });
    const mcpRegistry = new McpRegistryClient({ baseUrl: config.MCP_REGISTRY_URL, ...clients });
    const cms = config.CMS_URL
      ? new JsonApiCmsClient({ baseUrl: config.CMS_URL, token: () => config.CMS_API_KEY, timeoutMs, allowPrivate: config.OUTBOUND_ALLOW_PRIVATE })
      : undefined;
    const scm = config.SCM_URL
      ? new GitLabScmClient({ baseUrl: config.SCM_URL, privateToken: config.SCM_TOKEN, timeoutMs, allowPrivate: config.OUTBOUND_ALLOW_PRIVATE })
      : undefined;
    const deployer: Deployer =
      config.GATEWAY_DEPLOYER === 'kubernetes'
        ? await KubernetesDeployer.create({
            kubeConfig: await loadKubeConfig({
              apiUrl: config.GATEWAY_K8S_API_URL,
              token: config.GATEWAY_K8S_TOKEN,
              caFile: config.GATEWAY_K8S_CA_FILE,
              kubeconfig: config.KUBECONFIG,
              inCluster: Boolean(config.KUBERNETES_SERVICE_HOST),
            }),
            namespace: config.GATEWAY_K8S_NAMESPACE,
            defaultImage: config.GATEWAY_DEFAULT_IMAGE,
            timeoutMs,
          })
        : new NoneDeployer();

    if (!config.GATEWAY_REPLY_SECRET && config.NODE_ENV === 'production')
      logger.warn('GATEWAY_REPLY_SECRET is not set: replies reach only the replica that sent the task');
    const replies = new ReplyHub(infra.redis, config.GATEWAY_REPLY_SECRET ?? randomBytes(32).toString('hex'), config.GATEWAY_PUBLIC_URL, BASE_PATH);
    await replies.start();
    infra.onShutdown('replies', () => replies.stop(), ShutdownPriority.components);

    const verifier = await infra.verifier();
    const memo = new VerificationMemo(verifier);
    const api = new ApiRouter(memo.verifier);
    // The execute hot path's own pool, bound like Prisma's (AgentsRepository).
    const sql = sqlPool(serviceDatabaseUrl('gateway', config.DATABASE_URL), 'gateway', {
      poolSize: config.DATABASE_POOL_SIZE,
      statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS,
      onError: (error) => logger.warn({ err: error }, 'execute pool connection lost'),
    });
    infra.onShutdown('postgres (execute pool)', () => sql.end(), ShutdownPriority.stores);
    const agents = new AgentsService(new AgentsRepository(db, sql), {
      registry,
      master,
      mesh,
      tracing,
      deployer,
      delegate,
      replies,
      executeTimeoutMs: config.GATEWAY_EXECUTE_TIMEOUT_MS,
      defaultImage: config.GATEWAY_DEFAULT_IMAGE,
      onError: (error, doing) => logger.error({ err: error }, doing),
    });
    const studio = new StudioService(new StudioRepository(db), {
      mesh,
      replies,
      queue: infra.queues.producer(studioTaskQueue),
      serviceToken: ownToken,
      taskTimeoutMs: config.GATEWAY_STUDIO_TASK_TIMEOUT_MS,
    });
    const cmsService = new CmsService(cms, new SitesRepository(db), infra.queues.producer(siteQueue), BASE_PATH);

    infra.queues
      .process(studioTaskQueue, ({ taskId }) => studio.run(taskId), { concurrency: 4 })
      ?.on('failed', (job, error) => {
        if (job && job.attemptsMade >= (job.opts.attempts ?? 1)) void studio.failTask(job.id ?? '', error.message).catch(() => undefined);
      });
    infra.queues
      .process(siteQueue, ({ siteId }) => cmsService.buildSite(siteId), { concurrency: 2 })
      ?.on('failed', (job, error) => {
        if (job && job.attemptsMade >= (job.opts.attempts ?? 1)) void cmsService.failSite(job.id ?? '', error.message).catch(() => undefined);
      });

    agentRoutes(api, agents);
    workflowRoutes(api, new WorkflowsService(new WorkflowsRepository(db), { workflowEngine, workers }));
    cmsRoutes(api, cmsService);
    studioRoutes(api, studio);
    scmRoutes(api, new ScmService(scm));
    discoveryRoutes(api, new DiscoveryService({ registry, mesh, mcpRegistry, delegate }));
    replyRoutes(api, replies, agents, studio);

    const exchange = new ApiKeyExchange(new AuthClient({ baseUrl: config.AUTH_URL, timeoutMs: 5000 }), {
      clientId: config.GATEWAY_CLIENT_ID,
      renewBeforeMs: config.GATEWAY_TOKEN_RENEW_MS,
      maxEntries: config.GATEWAY_API_KEY_CACHE_SIZE,
    });
    const limiter = createRateLimiter({
      redis: infra.redis,
      name: 'gateway',
      points: config.GATEWAY_RATE_LIMIT,
      burst: config.GATEWAY_RATE_BURST,
      windowSeconds: config.GATEWAY_RATE_WINDOW,
    });
    const consoleParts = consoleFeature({ basePath: BASE_PATH, api, config, verifier, redis: infra.redis, logger });
    const platform = platformFeature({
      basePath: BASE_PATH,
      api,
      config,
      exchange,
      verifier,
      limiter,
      logger,
      targets: {
        auth: config.AUTH_URL,
        registry: config.REGISTRY_URL,
        master: config.MASTER_URL,
        mesh: config.MESH_URL,
        workers: config.WORKERS_URL,
        'workflow-engine': config.WORKFLOW_ENGINE_URL,
        tracing: config.TRACING_URL,
        'mcp-registry': config.MCP_REGISTRY_URL,
        'local-models': config.LOCAL_MODELS_URL,
      },
    });
    infra.onShutdown('platform sockets', () => platform.sockets.close(), ShutdownPriority.intake);
    const models = modelFeature({ config, db, api, verifier: memo.verifier, delegate, logger });
    infra.onShutdown('model usage', () => models.drain(), ShutdownPriority.components);
    return {
      beforeBody: [
        gatewayAccess({ basePath: BASE_PATH, exchange, verifier, limiter, memo }),
        // OpenAI's API at `/v1`, where OpenAI clients look for it: the same keys, tokens and limits.
        gatewayAccess({ basePath: '/v1', exchange, verifier, limiter, memo }),
        platform.proxy,
      ],
      routers: [
        { basePath: BASE_PATH, router: api },
        { basePath: '/v1', router: models.v1 },
      ],
      rootRouters: [consoleParts.router],
      onListening: (server) => platform.sockets.attach(server),
      health: { extra: () => ({ deployer: deployer.kind }) },
    };
  },
});
