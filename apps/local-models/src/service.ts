import { env } from '@platform/config';
import { ApiRouter, rateLimit } from '@platform/http';
import { defineService, ShutdownPriority } from '@platform/service-kit';
import { createDatabase } from './database';
import path from 'node:path';
import { z } from 'zod';
import { EmbeddedBackend } from './backends/embedded.backend';
import { GgufLibrary } from './backends/gguf-library';
import { OllamaBackend } from './backends/ollama.backend';
import { inferenceRoutes } from './inference/inference.router';
import { InferenceService } from './inference/inference.service';
import { modelRoutes } from './models/models.router';
import { ModelCatalog } from './models/models.service';
import { ollamaErrors } from './openai/openai.errors';
import { openAiRoutes } from './openai/openai.router';
import { OpenAiService } from './openai/openai.service';
import { PriceTable, Pricing } from '@platform/contracts';
import { toolRoutes } from './tools/tools.router';
import { ToolsService } from './tools/tools.service';
import { UsageRepository } from './usage/usage.repository';
import { usageRoutes } from './usage/usage.router';
import { UsageService } from './usage/usage.service';

export const LOCAL_MODELS_VERSION = '1.0.0';

export const localModelsService = defineService({
  name: 'local-models',
  version: LOCAL_MODELS_VERSION,
  port: 3011,
  openapi: {
    title: 'Local model service',
    description:
      "Runs models locally behind the Ollama API (spec 2) and OpenAI's API (`/v1`): GGUF files in-process with node-llama-cpp, and the models of an Ollama server.",
  },
  config: {
    /** An Ollama server whose models are served too; empty: none. */
    OLLAMA_URL: z.union([z.literal(''), z.string().url()]).default(''),
    OLLAMA_TIMEOUT: env.seconds(300),
    OLLAMA_TAGS_TTL_MS: env.ms(5000),
    /** Directory of `*.gguf` files run in-process. */
    LOCAL_MODELS_DIR: z.string().default('models'),
    LOCAL_MODELS_CONTEXT_SIZE: env.int(4096, { min: 64, max: 262_144 }),
    LOCAL_MODELS_PARALLEL: env.int(2, { min: 1, max: 64 }),
    /** Requests that may wait for a busy embedded model; more answer 503 with Retry-After. */
    LOCAL_MODELS_QUEUE: env.int(32, { min: 0, max: 10_000 }),
    LOCAL_MODELS_MAX_LOADED: env.int(2, { min: 1, max: 32 }),
    LOCAL_MODELS_GPU: z.enum(['auto', 'false']).default('auto'),
    /** CPU threads per model context; 0: all math cores. Fewer when the machine is shared (spinning threads slow everyone). */
    LOCAL_MODELS_THREADS: env.int(0, { min: 0, max: 256 }),
    LOCAL_MODELS_MAX_PREDICT: env.int(2048, { min: 1, max: 262_144 }),
    LOCAL_MODELS_PRICES: PriceTable,
    /** What `/api/version` answers: the Ollama API version whose routes and shapes this service follows. */
    LOCAL_MODELS_OLLAMA_VERSION: z.string().min(1).default('0.12.0'),
    /** Spec 2's engine limits: 200 requests a minute, bursts to 300. */
    LOCAL_MODELS_RATE_LIMIT: env.int(200, { min: 1 }),
    LOCAL_MODELS_RATE_LIMIT_BURST: env.int(300, { min: 1 }),
    /** Usage records are written in batches this often. */
    LOCAL_MODELS_USAGE_FLUSH_MS: env.ms(1000),
  },
  database: createDatabase,
  async build(infra) {
    const { config, logger } = infra;
    const library = new GgufLibrary(path.resolve(config.LOCAL_MODELS_DIR), logger);
    const embedded = new EmbeddedBackend(
      {
        contextSize: config.LOCAL_MODELS_CONTEXT_SIZE,
        parallel: config.LOCAL_MODELS_PARALLEL,
        queue: config.LOCAL_MODELS_QUEUE,
        maxLoaded: config.LOCAL_MODELS_MAX_LOADED,
        gpu: config.LOCAL_MODELS_GPU,
        threads: config.LOCAL_MODELS_THREADS,
      },
      logger,
    );
    infra.onShutdown('embedded models', () => embedded.close(), ShutdownPriority.components);
    const ollama = config.OLLAMA_URL
      ? new OllamaBackend({ baseUrl: config.OLLAMA_URL, timeoutMs: config.OLLAMA_TIMEOUT * 1000, tagsTtlMs: config.OLLAMA_TAGS_TTL_MS }, logger)
      : undefined;
    if (ollama) infra.onShutdown('ollama connections', () => ollama.close(), ShutdownPriority.components);
    const catalog = new ModelCatalog(library, ollama, logger, embedded);
    const pricing = new Pricing(config.LOCAL_MODELS_PRICES);
    const usage = new UsageService(new UsageRepository(infra.db), pricing, logger, { flushMs: config.LOCAL_MODELS_USAGE_FLUSH_MS, maxBuffered: 100_000 });
    // After the HTTP server stopped taking calls, before Postgres closes.
    infra.onShutdown('usage records', () => usage.close(), ShutdownPriority.components);
    const inference = new InferenceService(catalog, embedded, ollama, { maxPredict: config.LOCAL_MODELS_MAX_PREDICT }, usage);
    const tools = new ToolsService(catalog, inference, pricing);

    const api = new ApiRouter(await infra.verifier());
    const before = [
      rateLimit({
        redis: infra.redis,
        name: 'local-models',
        points: config.LOCAL_MODELS_RATE_LIMIT,
        burst: config.LOCAL_MODELS_RATE_LIMIT_BURST,
        windowSeconds: 60,
      }),
    ];
    modelRoutes(api, catalog, before, config.LOCAL_MODELS_OLLAMA_VERSION);
    inferenceRoutes(api, inference, before);
    toolRoutes(api, tools, before);
    usageRoutes(api, usage, before);
    api.router.use(ollamaErrors(logger));
    const openai = new ApiRouter(await infra.verifier());
    openAiRoutes(openai, new OpenAiService(catalog, embedded, ollama, inference, { maxPredict: config.LOCAL_MODELS_MAX_PREDICT }, usage), before, logger);
    logger.info({ modelsDir: library.directory, ollama: config.OLLAMA_URL || 'none' }, 'local-models backends');
    // Read the GGUF headers and digests now (a digest of a large file takes seconds), not on the first listing.
    void library.list().then(
      (models) => logger.info({ models: models.map((model) => model.name) }, 'embedded models found'),
      (error: unknown) => logger.warn({ err: error }, 'models directory not readable'),
    );

    return {
      // Base path `/` (DESIGN.md): mounted at the root, as Ollama clients expect `/api/...`.
      routers: [
        { basePath: '', router: api },
        // OpenAI's API, as Ollama, vLLM and LiteLLM serve it.
        { basePath: '/v1', router: openai },
      ],
      health: {
        checks: (ollama ? { ollama: () => ollama.ping() } : {}) as Record<string, () => Promise<unknown>>,
        extra: async () => ({
          backends: {
            embedded: {
              directory: library.directory,
              models: (await library.list().catch(() => [])).length,
              loaded: embedded.loadedVersions.length,
              ...(await embedded.activity()),
            },
            ...(ollama && { ollama: { url: ollama.url } }),
          },
        }),
      },
    };
  },
});
