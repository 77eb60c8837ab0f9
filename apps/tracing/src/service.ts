import { serviceApiKeyToken } from '@platform/clients';
import { env, serviceDatabaseUrl } from '@platform/config';
import { PriceTable, Pricing } from '@platform/contracts';
import { sqlPool } from '@platform/data';
import { ApiRouter } from '@platform/http';
import { defineService, ShutdownPriority } from '@platform/service-kit';
import { z } from 'zod';
import { ConfigRepository } from './config/config.repository';
import { configRoutes } from './config/config.router';
import { retentionQueue } from './config/retention.queue';
import { RetentionService } from './config/retention.service';
import { createDatabase } from './database';
import { DatasetsRepository } from './datasets/datasets.repository';
import { datasetRoutes } from './datasets/datasets.router';
import { DatasetsService } from './datasets/datasets.service';
import { projectionQueue } from './embeddings/embeddings.queue';
import { EmbeddingsRepository } from './embeddings/embeddings.repository';
import { embeddingRoutes } from './embeddings/embeddings.router';
import { EmbeddingsService } from './embeddings/embeddings.service';
import { evaluationQueue } from './evaluations/evaluations.queue';
import { EvaluationsRepository } from './evaluations/evaluations.repository';
import { evaluationRoutes } from './evaluations/evaluations.router';
import { EvaluationsService } from './evaluations/evaluations.service';
import { Judge } from './evaluations/judge';
import { IngestBuffer } from './ingest/ingest-buffer';
import { IngestKeys } from './ingest/ingest-keys';
import { IngestService } from './ingest/ingest.service';
import { OtlpGrpcServer } from './ingest/otlp.grpc';
import { otlpDocumentation, otlpRouter } from './ingest/otlp.router';
import { SessionsRepository } from './sessions/sessions.repository';
import { sessionRoutes } from './sessions/sessions.router';
import { SessionsService } from './sessions/sessions.service';
import { spanRoutes } from './spans/spans.router';
import { SpansRepository } from './spans/spans.repository';
import { SpansService } from './spans/spans.service';
import { UsageRepository } from './usage/usage.repository';
import { usageRoutes } from './usage/usage.router';
import { UsageService } from './usage/usage.service';

export const TRACING_VERSION = '1.0.0';

export const tracingService = defineService({
  name: 'tracing',
  version: TRACING_VERSION,
  port: 6006,
  openapi: {
    title: 'Tracing API',
    description:
      'OTLP/HTTP and OTLP/gRPC (TRACING_GRPC_PORT) span ingestion, trace and span queries, retention, datasets, evaluations and embedding projections.',
  },
  config: {
    /** Prices of models per 1,000 tokens (contracts' model price table): TRACING_MODEL_PRICES over LOCAL_MODELS_PRICES. */
    TRACING_MODEL_PRICES: PriceTable,
    LOCAL_MODELS_PRICES: PriceTable,
    /** OTLP/gRPC (TraceService/Export and grpc.health.v1.Health); 0: a free port. */
    TRACING_GRPC_PORT: env.port(4317),
    /** Largest OTLP body, measured after decompression (MiB). */
    TRACING_MAX_BODY_MB: env.int(16, { min: 1, max: 512 }),
    /** A batch of buffered spans is committed at least this often (ms)... */
    TRACING_FLUSH_MS: env.ms(50),
    /** ...or as soon as this many spans wait. */
    TRACING_FLUSH_SPANS: env.int(2000, { min: 1, max: 100_000 }),
    /** Spans waiting or being written, at most; beyond it exports get 503 with Retry-After. */
    TRACING_BUFFER_SPANS: env.int(50_000, { min: 1 }),
    /** Batches written at the same time. */
    TRACING_FLUSH_CONCURRENCY: env.int(2, { min: 1, max: 16 }),
    TRACING_RETRY_AFTER_SECONDS: env.int(1, { min: 1, max: 3600 }),
    /** Static ingestion keys, comma-separated (kept only as SHA-256 digests in memory). */
    TRACING_INGEST_KEYS: env.list(''),
    /** How often the scheduled retention job runs (ms); 0: this process schedules none (POST /api/gc still runs it). */
    TRACING_RETENTION_INTERVAL_MS: env.int(3_600_000, { min: 0 }),
    /** Largest example of a dataset (bytes of JSON). */
    TRACING_MAX_EXAMPLE_BYTES: env.int(256 * 1024, { min: 1024 }),
    /** Attempts per evaluation example, and the first retry's delay (doubling). */
    TRACING_EVAL_ATTEMPTS: env.int(3, { min: 1, max: 20 }),
    TRACING_EVAL_BACKOFF_MS: env.ms(1000),
    TRACING_EVAL_CONCURRENCY: env.int(4, { min: 1, max: 64 }),
    /** Evaluation targets on private, loopback or link-local addresses (off unless the operator allows it). */
    TRACING_EVAL_ALLOW_PRIVATE_TARGETS: env.bool(false),
    /** LLM-as-a-judge: an OpenAI-compatible chat completions URL (default: the gateway's model route). */
    TRACING_JUDGE_URL: z.url({ protocol: /^https?$/ }).default('http://127.0.0.1:3002/v1/chat/completions'),
    /** The judge's bearer key; without it, this service's own platform token (TRACING_API_KEY exchanged at auth). */
    TRACING_JUDGE_API_KEY: z.string().min(1).optional(),
    TRACING_API_KEY: z.string().min(1).optional(),
    TRACING_JUDGE_TIMEOUT_MS: env.ms(60_000),
    /** Judge calls again, this many times, when its answer is not a readable grade. */
    TRACING_JUDGE_PARSE_RETRIES: env.int(2, { min: 0, max: 5 }),
  },
  database: createDatabase,
  async build(infra) {
    const { config, db, logger } = infra;
    const verifier = await infra.verifier();
    // The batch writer's own small pool (one connection per concurrent flush), bound like Prisma's.
    const writer = sqlPool(serviceDatabaseUrl('tracing', config.DATABASE_URL), 'tracing', {
      poolSize: config.TRACING_FLUSH_CONCURRENCY,
      statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS,
      onError: (error) => logger.warn({ err: error }, 'span writer connection lost'),
    });
    infra.onShutdown('span writer', () => writer.end(), ShutdownPriority.stores - 1);
    const spansRepository = new SpansRepository(db, writer);
    const buffer = new IngestBuffer(
      (spans, embeddings) => spansRepository.insertBatch(spans, embeddings),
      {
        flushMs: config.TRACING_FLUSH_MS,
        flushSpans: config.TRACING_FLUSH_SPANS,
        capacity: config.TRACING_BUFFER_SPANS,
        concurrency: config.TRACING_FLUSH_CONCURRENCY,
      },
      logger,
    );
    infra.onShutdown('span buffer', () => buffer.close(), ShutdownPriority.components);
    const retention = new RetentionService(new ConfigRepository(db), spansRepository, buffer);
    const pricing = new Pricing({ ...config.LOCAL_MODELS_PRICES, ...config.TRACING_MODEL_PRICES });
    const ingest = new IngestService(buffer, retention.retentionDays, logger, pricing);
    const keys = new IngestKeys(config.TRACING_INGEST_KEYS);
    if (keys.size === 0) logger.info('no TRACING_INGEST_KEYS: ingestion takes platform tokens with traces:write only');

    const retentionJobs = infra.queues.producer(retentionQueue);
    infra.queues.process(retentionQueue, async () => retention.run(), { concurrency: 1 });
    if (infra.role !== 'api' && config.TRACING_RETENTION_INTERVAL_MS > 0) {
      await retentionJobs.queue.upsertJobScheduler(
        'tracing.retention',
        { every: config.TRACING_RETENTION_INTERVAL_MS },
        { name: 'retention', data: { payload: { reason: 'schedule' }, trace: {} } },
      );
    }

    const datasetsRepository = new DatasetsRepository(db);
    const evaluations = new EvaluationsService(
      new EvaluationsRepository(db),
      datasetsRepository,
      spansRepository,
      ingest,
      infra.queues.producer(evaluationQueue),
      {
        attempts: config.TRACING_EVAL_ATTEMPTS,
        backoffMs: config.TRACING_EVAL_BACKOFF_MS,
        allowPrivateTargets: config.TRACING_EVAL_ALLOW_PRIVATE_TARGETS,
        judge: new Judge({
          url: config.TRACING_JUDGE_URL,
          token: config.TRACING_JUDGE_API_KEY
            ? () => config.TRACING_JUDGE_API_KEY
            : config.TRACING_API_KEY
              ? serviceApiKeyToken({ authUrl: config.AUTH_URL, apiKey: config.TRACING_API_KEY, clientId: 'tracing' })
              : undefined,
          timeoutMs: config.TRACING_JUDGE_TIMEOUT_MS,
          parseRetries: config.TRACING_JUDGE_PARSE_RETRIES,
        }),
      },
    );
    infra.queues.process(evaluationQueue, (payload, job) => evaluations.process(payload, job), { concurrency: config.TRACING_EVAL_CONCURRENCY });
    const embeddings = new EmbeddingsService(new EmbeddingsRepository(db), infra.queues.producer(projectionQueue), '/api');
    infra.queues.process(projectionQueue, (payload) => embeddings.process(payload), { concurrency: 1 });

    // OTLP/gRPC takes spans wherever the API runs (not in the worker role).
    const grpc =
      infra.role === 'worker'
        ? undefined
        : new OtlpGrpcServer({ service: ingest, keys, verifier, maxMessageBytes: config.TRACING_MAX_BODY_MB * 1024 * 1024, logger });
    if (grpc) {
      await grpc.listen(config.HOST, config.TRACING_GRPC_PORT);
      infra.onShutdown('otlp grpc server', () => grpc.close(), ShutdownPriority.intake);
      logger.info({ port: grpc.port }, 'OTLP/gRPC listening');
    }

    const api = new ApiRouter(verifier);
    const usage = new UsageService(new UsageRepository(db));
    spanRoutes(api, new SpansService(spansRepository, buffer, ingest, usage));
    usageRoutes(api, usage);
    sessionRoutes(api, new SessionsService(new SessionsRepository(db)));
    configRoutes(api, retention, buffer);
    datasetRoutes(api, new DatasetsService(datasetsRepository, config.TRACING_MAX_EXAMPLE_BYTES));
    evaluationRoutes(api, evaluations);
    embeddingRoutes(api, embeddings);

    return {
      beforeBody: [
        otlpRouter({
          service: ingest,
          keys,
          verifier,
          maxBodyBytes: config.TRACING_MAX_BODY_MB * 1024 * 1024,
          retryAfterSeconds: config.TRACING_RETRY_AFTER_SECONDS,
        }),
      ],
      routers: [
        { basePath: '/v1', router: otlpDocumentation(verifier) },
        { basePath: '/api', router: api },
      ],
      health: {
        aliases: ['/api/health'],
        extra: () => ({
          ingest: { buffer_depth: buffer.depth, buffer_capacity: buffer.capacity },
          ...(grpc && { grpc: { port: grpc.port, status: grpc.status } }),
        }),
      },
      grpc,
    };
  },
});
