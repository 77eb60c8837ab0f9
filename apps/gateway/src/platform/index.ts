import type { ApiRouter, RateLimiter } from '@platform/http';
import type { TokenVerifier } from '@platform/jwt';
import type { Logger } from '@platform/telemetry';
import type { ApiKeyExchange } from '../access/api-keys';
import { platformProxy } from './platform.proxy';
import { documentPlatformRoutes } from './platform.routes';
import { PlatformSockets } from './platform.sockets';
import type { PlatformTargets } from './platform.targets';

export { platformConfig, type PlatformTargets } from './platform.targets';

export interface PlatformFeatureDeps {
  basePath: string;
  api: ApiRouter;
  targets: PlatformTargets;
  config: { GATEWAY_PLATFORM_TIMEOUT_MS: number; GATEWAY_PLATFORM_BODY_LIMIT: number };
  exchange: ApiKeyExchange;
  verifier: TokenVerifier;
  limiter: RateLimiter;
  logger: Logger;
}

/** `/api/v1/platform/{service}/…`: the HTTP pass-through (a middleware before the body parser) and its WebSockets. */
export function platformFeature(deps: PlatformFeatureDeps) {
  const prefix = `${deps.basePath}/platform/`;
  documentPlatformRoutes(deps.api);
  const timeoutMs = deps.config.GATEWAY_PLATFORM_TIMEOUT_MS;
  const sockets = new PlatformSockets({
    prefix,
    targets: deps.targets,
    timeoutMs,
    exchange: deps.exchange,
    verifier: deps.verifier,
    limiter: deps.limiter,
    logger: deps.logger,
  });
  return {
    proxy: platformProxy({ prefix, targets: deps.targets, timeoutMs, bodyLimit: deps.config.GATEWAY_PLATFORM_BODY_LIMIT }),
    sockets,
  };
}
