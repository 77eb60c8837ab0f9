import {
  JsonApiCmsClient,
  LocalModelsClient,
  McpRegistryClient,
  serviceApiKeyToken,
  ServiceClient,
  TokenExchanger,
  guardedTransport,
  type TokenSource,
} from '@platform/clients';
import { env, serviceDatabaseUrl } from '@platform/config';
import type { workflowEngine } from '@platform/contracts';
import { sqlPool } from '@platform/data';
import { ApiRouter, rateLimit } from '@platform/http';
import { deadLetterRoutes } from '@platform/queues';
import { defineService, ShutdownPriority } from '@platform/service-kit';
import { z } from 'zod';
import { BatchesRepository } from './batches/batches.repository';
import { batchRoutes } from './batches/batches.router';
import { BatchesService } from './batches/batches.service';
import { CollectionsRepository } from './collections/collections.repository';
import { Delegations } from './executions/delegations';
import { collectionRoutes } from './collections/collections.router';
import { CollectionsService } from './collections/collections.service';
import { componentRoutes } from './components/components.router';
import { createDatabase } from './database';
import { ExecutionEngine, type RunOutcome } from './executions/engine';
import { EventBus } from './executions/event-bus';
import { batchQueue, executionQueue, webhookQueue } from './executions/execution-queue';
import { ExecutionsRepository } from './executions/executions.repository';
import { executionRoutes } from './executions/executions.router';
import { LocalEnds } from './executions/local-ends';
import { EXECUTION_JOB_OPTIONS, ExecutionsService } from './executions/executions.service';
import { createStreams } from './executions/stream';
import { ExpressionPool } from './expressions/expression-pool';
import { Expressions } from './expressions/expressions';
import { SecretBox } from './webhooks/secret-box';
import { Webhooks } from './webhooks/webhooks';
import { WorkflowsRepository } from './workflows/workflows.repository';
import { workflowRoutes } from './workflows/workflows.router';
import { WorkflowsService } from './workflows/workflows.service';

export const ENGINE_VERSION = '0.1.0';
const DEVELOPMENT_KEY = 'development-only-workflow-engine-key';
/** An optional URL; empty means not configured. */
const optionalUrl = z.preprocess((value) => (value === '' ? undefined : value), z.string().url().optional());

export const workflowEngineService = defineService({
  name: 'workflow-engine',
  version: ENGINE_VERSION,
  port: 3090,
  openapi: { title: 'Workflow Engine API', description: 'Visual workflows (nodes and edges) run on BullMQ with their state in Postgres (spec 3).' },
  config: {
    /** Longest a `async: false` execute waits before answering 202. */
    WORKFLOW_ENGINE_SYNC_TIMEOUT_MS: env.ms(30_000),
    /** Executions one worker process runs at once. */
    WORKFLOW_ENGINE_CONCURRENCY: env.int(16, { min: 1, max: 500 }),
    WORKFLOW_ENGINE_BATCH_CONCURRENCY: env.int(2, { min: 1, max: 50 }),
    /** Encrypts callback signing secrets at rest; set it in production. */
    WORKFLOW_ENGINE_SECRET_KEY: z.string().min(16).default(DEVELOPMENT_KEY),
    /** The service's own API key, exchanged at auth for calls to local-models and mcp-registry. */
    WORKFLOW_ENGINE_API_KEY: z.string().optional(),
    /** The public base URL (for `monitorUrl`); the request's host otherwise. */
    WORKFLOW_ENGINE_PUBLIC_URL: optionalUrl,
    WORKFLOW_ENGINE_RATE_LIMIT: env.int(200, { min: 1 }),
    WORKFLOW_ENGINE_RATE_BURST: env.int(300, { min: 1 }),
    WORKFLOW_ENGINE_VECTOR_MAX_DOCUMENTS: env.int(20_000, { min: 1, max: 1_000_000 }),
    /** Processes that evaluate JSONata (Condition nodes), each one expression at a time. */
    WORKFLOW_ENGINE_EXPRESSION_PROCESSES: env.int(2, { min: 1, max: 32 }),
    /** Longest one expression may run; it is stopped (EXPRESSION_TIMEOUT) and its process replaced. */
    WORKFLOW_ENGINE_EXPRESSION_TIMEOUT_MS: env.ms(1000),
    /** Heap of each expression process; an expression past it is stopped (EXPRESSION_MEMORY). */
    WORKFLOW_ENGINE_EXPRESSION_MEMORY_MB: env.int(64, { min: 16, max: 4096 }),
    LOCAL_MODELS_URL: z.string().url().default('http://127.0.0.1:3011'),
    MCP_REGISTRY_URL: z.string().url().default('http://127.0.0.1:3000'),
    DEFAULT_MODEL: z.string().default('llama3.2'),
    EMBEDDING_MODEL: z.string().default('nomic-embed-text'),
    CMS_URL: optionalUrl,
    CMS_API_KEY: z.string().optional(),
    CMS_CLIENT_ID: z.string().default('workflow-engine'),
    SCM_URL: optionalUrl,
    SCM_TOKEN: z.string().optional(),
    IMAGE_API_URL: optionalUrl,
    IMAGE_API_KEY: z.string().optional(),
    IMAGE_MODEL: z.string().default('dall-e-3'),
    /** Callbacks, CMS, SCM and images may reach private and loopback addresses (tests, in-cluster). */
    OUTBOUND_ALLOW_PRIVATE: env.bool(false),
    /** Processes a run may end (killed, out of memory) mid-run before it is failed (POISON_RUN) rather than picked up again. */
    WORKFLOW_ENGINE_MAX_CRASHES: env.int(2, { min: 1, max: 100 }),
    /** Re-enqueue executions Postgres says are unfinished when a worker starts (Redis lost its jobs). */
    WORKFLOW_ENGINE_RECOVER_ON_START: env.bool(true),
    WEBHOOK_TIMEOUT_MS: env.ms(10_000),
    WEBHOOK_MAX_ATTEMPTS: env.int(8, { min: 1, max: 50 }),
    WEBHOOK_RETRY_DELAY_MS: env.ms(1000),
  },
  database: createDatabase,
  async build(infra) {
    const { config, logger } = infra;
    if (config.NODE_ENV === 'production' && config.WORKFLOW_ENGINE_SECRET_KEY === DEVELOPMENT_KEY) {
      throw new Error('Invalid configuration: WORKFLOW_ENGINE_SECRET_KEY must be set in production (it seals the callback signing secrets)');
    }
    const api = new ApiRouter(await infra.verifier());
    const before = [
      rateLimit({
        redis: infra.redis,
        name: 'workflow-engine',
        points: config.WORKFLOW_ENGINE_RATE_LIMIT,
        burst: config.WORKFLOW_ENGINE_RATE_BURST,
        windowSeconds: 60,
      }),
    ];

    const serviceToken: TokenSource | undefined = config.WORKFLOW_ENGINE_API_KEY
      ? serviceApiKeyToken({ authUrl: config.AUTH_URL, apiKey: config.WORKFLOW_ENGINE_API_KEY, clientId: 'workflow-engine' })
      : undefined;
    const localModels = new LocalModelsClient({ baseUrl: config.LOCAL_MODELS_URL, token: serviceToken, timeoutMs: 120_000 });
    const cms = config.CMS_URL
      ? new JsonApiCmsClient({ baseUrl: config.CMS_URL, token: () => config.CMS_API_KEY, allowPrivate: config.OUTBOUND_ALLOW_PRIVATE })
      : undefined;
    const scm = config.SCM_URL
      ? new ServiceClient({
          service: 'scm',
          baseUrl: config.SCM_URL,
          token: () => config.SCM_TOKEN,
          transport: guardedTransport({ allowPrivate: config.OUTBOUND_ALLOW_PRIVATE }),
        })
      : undefined;
    const images = config.IMAGE_API_URL
      ? {
          client: new ServiceClient({
            service: 'images',
            baseUrl: config.IMAGE_API_URL,
            token: () => config.IMAGE_API_KEY,
            retries: 0,
            transport: guardedTransport({ allowPrivate: config.OUTBOUND_ALLOW_PRIVATE }),
          }),
          model: config.IMAGE_MODEL,
        }
      : undefined;

    const secrets = new SecretBox(config.WORKFLOW_ENGINE_SECRET_KEY);
    // Runs call models and MCP servers as the user who started them (./executions/delegations.ts).
    const exchanger = serviceToken ? new TokenExchanger({ authUrl: config.AUTH_URL, serviceToken }) : undefined;
    const delegations = new Delegations(infra.redis, secrets, exchanger, serviceToken);
    const workflowsRepository = new WorkflowsRepository(infra.db);
    const workflows = new WorkflowsService(workflowsRepository, secrets);
    const collections = new CollectionsService(
      new CollectionsRepository(infra.db),
      localModels,
      config.EMBEDDING_MODEL,
      config.WORKFLOW_ENGINE_VECTOR_MAX_DOCUMENTS,
    );
    // JSONata runs in child processes with a budget (see ExpressionPool); only workers evaluate.
    const expressions = new ExpressionPool(
      {
        size: config.WORKFLOW_ENGINE_EXPRESSION_PROCESSES,
        timeoutMs: config.WORKFLOW_ENGINE_EXPRESSION_TIMEOUT_MS,
        memoryMb: config.WORKFLOW_ENGINE_EXPRESSION_MEMORY_MB,
        maxResultBytes: 1_000_000,
        queueTimeoutMs: 30_000,
      },
      logger,
    );
    if (infra.role !== 'api') expressions.start();
    const inlineOrBudgeted = new Expressions(expressions);
    infra.onShutdown('expression processes', () => expressions.close(), ShutdownPriority.components);
    const events = new EventBus(infra.redis, logger);
    await events.start();
    infra.onShutdown('event bus', () => events.close(), ShutdownPriority.components);

    // The per-execution statements go through a plain pg pool (see ExecutionsRepository).
    const sql = sqlPool(serviceDatabaseUrl('workflow-engine', config.DATABASE_URL), 'workflow-engine', {
      poolSize: config.DATABASE_POOL_SIZE,
      statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS,
      onError: (error) => logger.warn({ err: error }, 'idle postgres connection lost'),
    });
    infra.onShutdown('postgres (execution pool)', () => sql.end(), ShutdownPriority.stores);
    const executionsRepository = new ExecutionsRepository(infra.db, sql);
    const localEnds = new LocalEnds();
    const engine = new ExecutionEngine(
      executionsRepository,
      async (workflowId) => (await workflows.get(workflowId)).flow as unknown as workflowEngine.Flow,
      events,
      (_signal, run) => {
        const token = delegations.tokenFor(run.id);
        return {
          localModels: new LocalModelsClient({ baseUrl: config.LOCAL_MODELS_URL, token, timeoutMs: 120_000 }),
          mcp: new McpRegistryClient({ baseUrl: config.MCP_REGISTRY_URL, token, timeoutMs: 30_000 }),
          cms,
          scm,
          images,
          cmsClientId: config.CMS_CLIENT_ID,
          defaultModel: config.DEFAULT_MODEL,
          embeddingModel: config.EMBEDDING_MODEL,
          vectors: collections.readableBy(run.scope),
          expressions: inlineOrBudgeted,
        };
      },
      logger,
      localEnds,
      config.WORKFLOW_ENGINE_MAX_CRASHES,
    );
    // Running executions stop first on shutdown; their jobs retry and resume on another worker.
    infra.onShutdown('running executions', () => engine.abortAll(), ShutdownPriority.intake);

    const executionProducer = infra.queues.producer(executionQueue);
    const batchProducer = infra.queues.producer(batchQueue);
    const webhookProducer = infra.queues.producer(webhookQueue);
    const webhooks = new Webhooks(
      (id) => workflowsRepository.sealedSecret(id),
      webhookProducer,
      secrets,
      {
        allowPrivate: config.OUTBOUND_ALLOW_PRIVATE,
        timeoutMs: config.WEBHOOK_TIMEOUT_MS,
        maxAttempts: config.WEBHOOK_MAX_ATTEMPTS,
        retryDelayMs: config.WEBHOOK_RETRY_DELAY_MS,
      },
      logger,
    );
    const executions = new ExecutionsService(
      executionsRepository,
      workflows,
      executionProducer,
      events,
      config.WORKFLOW_ENGINE_SYNC_TIMEOUT_MS,
      localEnds,
      delegations,
    );
    const batches = new BatchesService(new BatchesRepository(infra.db), workflows, batchProducer, engine, events, webhooks, delegations);

    const reportEnd = async (outcome: RunOutcome | undefined) => {
      if (!outcome) return;
      const body = {
        executionId: outcome.executionId,
        workflowId: outcome.workflowId,
        status: outcome.status,
        duration: outcome.durationMs,
        result: outcome.result,
        ...(outcome.failure && { error: outcome.failure, retryable: outcome.failure.retryable }),
      };
      await webhooks.enqueue(
        outcome.workflowId,
        outcome.failure ? outcome.callbacks.onError : outcome.callbacks.onComplete,
        outcome.failure ? 'workflow.failed' : 'workflow.completed',
        body,
      );
    };
    const executionWorker = infra.queues.process(executionQueue, async ({ executionId }) => reportEnd(await engine.run(executionId)), {
      concurrency: config.WORKFLOW_ENGINE_CONCURRENCY,
    });
    // A job whose workers died under it more often than BullMQ allows (a stall past maxStalledCount)
    // is failed by BullMQ without reaching the processor: its run is failed as poison here.
    executionWorker?.on('failed', (job, error) => {
      const executionId = (job?.data as { payload?: { executionId?: string } } | undefined)?.payload?.executionId;
      if (!executionId || !/stalled more than allowable limit/.test(error.message)) return;
      void engine
        .abandon(executionId)
        .then(reportEnd)
        .catch((failure: unknown) => logger.error({ err: failure, executionId }, 'poison execution not failed'));
    });
    const batchControllers = new Set<AbortController>();
    infra.onShutdown('running batches', () => batchControllers.forEach((controller) => controller.abort()), ShutdownPriority.intake);
    infra.queues.process(
      batchQueue,
      async ({ batchId }) => {
        const controller = new AbortController();
        batchControllers.add(controller);
        try {
          await batches.run(batchId, controller.signal);
        } finally {
          batchControllers.delete(controller);
        }
      },
      { concurrency: config.WORKFLOW_ENGINE_BATCH_CONCURRENCY },
    );
    infra.queues.process(webhookQueue, (job) => webhooks.deliver(job), { concurrency: 8 });

    if (infra.role !== 'api' && config.WORKFLOW_ENGINE_RECOVER_ON_START) {
      // Redis holds nothing that cannot be rebuilt: executions Postgres says are unfinished are enqueued again (a no-op for jobs that exist).
      const unfinished = await executionsRepository.unfinished(new Date(), 1000);
      for (const { id } of unfinished) await executionProducer.add('execute', { executionId: id }, { jobId: id, ...EXECUTION_JOB_OPTIONS });
    }

    componentRoutes(api, before);
    workflowRoutes(api, workflows, before);
    executionRoutes(api, executions, before, config.WORKFLOW_ENGINE_PUBLIC_URL);
    batchRoutes(api, batches, before, config.WORKFLOW_ENGINE_PUBLIC_URL);
    collectionRoutes(api, collections, before);
    deadLetterRoutes(api, [executionProducer.queue, batchProducer.queue, webhookProducer.queue], 'workflows:admin');

    const streams = createStreams(await infra.verifier(), logger, events, executions, batches);
    infra.onShutdown('streams', () => streams.close(), ShutdownPriority.intake);
    const startOfDay = () => new Date(new Date().toISOString().slice(0, 10));
    return {
      routers: [{ basePath: '/api/v1', router: api }],
      health: {
        aliases: ['/api/health'],
        extra: async () => ({
          flow_runtime: { status: infra.role === 'api' ? 'api-only' : 'running', version: ENGINE_VERSION },
          executions: await executions.health(startOfDay()).catch(() => ({ active: 0, queued: 0, totalToday: 0 })),
        }),
      },
      onListening: (server) => streams.attach(server),
    };
  },
});
