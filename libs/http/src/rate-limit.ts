import type { Request, RequestHandler, Response } from 'express';
import type { Redis } from 'ioredis';
import { BurstyRateLimiter, RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { tooManyRequests } from './errors';

export interface RateLimitOptions {
  redis: Redis;
  /** Names the counter in Redis: `ratelimit:<name>:<key>`. */
  name: string;
  points: number;
  windowSeconds: number;
  /** Extra requests allowed in a short burst above `points` (spec 2's "burst"). */
  burst?: number;
  /** Whose counter a request spends; defaults to the caller's token subject, else the IP. */
  key?: (req: Request) => string;
}

export interface RateLimiter {
  consume(key: string, points?: number): Promise<RateLimiterRes>;
}

/**
 * Fixed-window counters in Redis through rate-limiter-flexible (atomic across replicas), with an
 * in-memory insurance limiter so a Redis outage degrades to per-replica limits instead of errors.
 */
export function createRateLimiter(options: RateLimitOptions): RateLimiter {
  const base = { storeClient: options.redis, keyPrefix: `ratelimit:${options.name}`, points: options.points, duration: options.windowSeconds };
  const main = new RateLimiterRedis({
    ...base,
    insuranceLimiter: new RateLimiterMemory({ points: options.points, duration: options.windowSeconds }),
  });
  if (!options.burst || options.burst <= options.points) return main;
  const burst = new RateLimiterRedis({
    ...base,
    keyPrefix: `ratelimit:${options.name}:burst`,
    points: options.burst - options.points,
    insuranceLimiter: new RateLimiterMemory({ points: options.burst - options.points, duration: options.windowSeconds }),
  });
  return new BurstyRateLimiter(main, burst);
}

export function setRateLimitHeaders(res: Response, limit: number, state: RateLimiterRes): void {
  res.setHeader('X-RateLimit-Limit', String(limit));
  res.setHeader('X-RateLimit-Remaining', String(Math.max(0, state.remainingPoints)));
  res.setHeader('X-RateLimit-Reset', String(Math.ceil((Date.now() + state.msBeforeNext) / 1000)));
}

export const defaultRateLimitKey = (req: Request): string => req.auth?.sub ?? req.ip ?? 'unknown';

/** Express middleware: X-RateLimit-* on every answer, 429 with Retry-After past the limit. */
export function rateLimit(options: RateLimitOptions): RequestHandler {
  const limiter = createRateLimiter(options);
  const key = options.key ?? defaultRateLimitKey;
  return async (req, res, next) => {
    try {
      setRateLimitHeaders(res, options.points, await limiter.consume(key(req)));
      next();
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) return next(rejection);
      setRateLimitHeaders(res, options.points, rejection);
      next(tooManyRequests('Too many requests; try again later', Math.max(1, Math.ceil(rejection.msBeforeNext / 1000))));
    }
  };
}
