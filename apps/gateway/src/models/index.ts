import { env } from '@platform/config';
import { PriceTable, Pricing, type localModels, type Price } from '@platform/contracts';
import { ApiRouter } from '@platform/http';
import type { TokenVerifier } from '@platform/jwt';
import type { Logger } from '@platform/telemetry';
import type { Db } from '../database';
import { ModelAccessRepository } from './model-access.repository';
import { ModelAccessService } from './model-access.service';
import { modelAccessRoutes, modelRoutes } from './models.router';
import { ModelRouteService } from './models.service';
import { ModelUpstreams, ModelUpstreamsConfig } from './upstreams';

/** The model route's configuration (beside LOCAL_MODELS_URL, its default upstream). */
export const modelConfig = {
  /** OpenAI-compatible upstreams besides local-models: JSON list of {name, url, apiKeyEnv | apiKey, models, system?}. */
  GATEWAY_MODEL_UPSTREAMS: ModelUpstreamsConfig,
  /** Longest silence of a model upstream before its answer or between streamed chunks; past it, the fallbacks are tried. */
  GATEWAY_MODEL_TIMEOUT_MS: env.ms(120_000),
  /** How long a caller's allow-list, budget and usage are reused by one replica. */
  GATEWAY_MODEL_ACCESS_TTL_MS: env.ms(1000),
  /** How often counted tokens are written to Postgres. */
  GATEWAY_MODEL_USAGE_FLUSH_MS: env.ms(500),
  /** Prices per 1,000 tokens for `gen_ai.usage.cost` (the platform's price table). */
  GATEWAY_MODEL_PRICES: PriceTable,
};

interface ModelFeatureDeps {
  config: {
    LOCAL_MODELS_URL: string;
    GATEWAY_MODEL_UPSTREAMS: localModels.ModelUpstream[];
    GATEWAY_MODEL_TIMEOUT_MS: number;
    GATEWAY_MODEL_ACCESS_TTL_MS: number;
    GATEWAY_MODEL_USAGE_FLUSH_MS: number;
    GATEWAY_MODEL_PRICES: Record<string, Price>;
  };
  db: Db;
  api: ApiRouter;
  verifier: TokenVerifier;
  delegate: (bearer: string) => Promise<string>;
  logger: Logger;
}

/** The platform's model endpoint: `/v1` (OpenAI's API) and the admin's `/api/v1/model-access`. */
export function modelFeature({ config, db, api, verifier, delegate, logger }: ModelFeatureDeps) {
  const upstreams = new ModelUpstreams(config.GATEWAY_MODEL_UPSTREAMS, {
    name: 'local-models',
    baseUrl: `${config.LOCAL_MODELS_URL.replace(/\/+$/, '')}/v1`,
    system: 'local-models',
    forwardCaller: true,
    patterns: ['*'],
  });
  const access = new ModelAccessService(new ModelAccessRepository(db), logger, {
    ttlMs: config.GATEWAY_MODEL_ACCESS_TTL_MS,
    maxCached: 100_000,
    flushMs: config.GATEWAY_MODEL_USAGE_FLUSH_MS,
  });
  const route = new ModelRouteService(upstreams, access, new Pricing(config.GATEWAY_MODEL_PRICES), { timeoutMs: config.GATEWAY_MODEL_TIMEOUT_MS, delegate }, logger);
  const v1 = new ApiRouter(verifier);
  modelRoutes(v1, route, logger);
  modelAccessRoutes(api, access);
  return { v1, drain: () => access.drain() };
}
