import type { Request, RequestHandler, Response } from 'express';
import type { Redis } from 'ioredis';
import { createHash } from 'node:crypto';
import { tooManyRequests } from './errors';

export interface RateLimitOptions {
  redis: Redis;
  /** Names the bucket in Redis: `ratelimit:<name>:<key>`. */
  name: string;
  /** Sustained rate: this many requests per window... */
  points: number;
  windowSeconds: number;
  /** ...with bursts of up to this many at once (spec 2's "burst"); defaults to `points`. */
  burst?: number;
  /** Whose bucket a request spends; defaults to the caller's token subject, else the IP. */
  key?: (req: Request) => string;
}

/** The state of a bucket after a request, as the headers announce it. */
export interface RateLimitState {
  allowed: boolean;
  /** The bucket's size: requests allowed at once. */
  limit: number;
  /** Requests still allowed right now. */
  remaining: number;
  /** Epoch seconds when the bucket is full again. */
  resetAt: number;
  /** Seconds until the next request is allowed (when refused). */
  retryAfter: number;
}

// A token bucket, atomic in Redis with Redis's own clock (replicas agree): refills at rate per ms
// up to capacity; a request takes one token or is refused. With a second key, the same script also
// reads the score of ARGV[4] in that sorted set (false when absent), so a caller that needs both
// sends one command.
const TAKE_TOKEN = `
local capacity = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local ttl = tonumber(ARGV[3])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local state = redis.call('HMGET', KEYS[1], 't', 'ts')
local tokens = tonumber(state[1])
local updated = tonumber(state[2])
if tokens == nil then tokens = capacity; updated = now end
tokens = math.min(capacity, tokens + math.max(0, now - updated) * rate)
local allowed = 0
if tokens >= 1 then tokens = tokens - 1; allowed = 1 end
redis.call('HSET', KEYS[1], 't', tostring(tokens), 'ts', now)
redis.call('PEXPIRE', KEYS[1], ttl)
local score = false
if KEYS[2] then score = redis.call('ZSCORE', KEYS[2], ARGV[4]) end
return { allowed, tostring(tokens), now, score }
`;

// Sent by its SHA-1 (EVALSHA) once Redis has it: Redis keeps the compiled script, so requests do
// not carry its text. The first call of a process sends the text (EVAL), which loads it.
const TAKE_TOKEN_SHA = createHash('sha1').update(TAKE_TOKEN).digest('hex');
const scriptLoaded = new WeakSet<Redis>();

/** The script's reply: allowed (1 or 0), tokens left, Redis's time (ms), the score read or null. */
type TakeReply = [number, string, number, string | null];

async function takeToken(redis: Redis, keys: string[], args: Array<string | number>): Promise<TakeReply> {
  if (scriptLoaded.has(redis)) {
    try {
      return (await redis.evalsha(TAKE_TOKEN_SHA, keys.length, ...keys, ...args)) as TakeReply;
    } catch (error) {
      // A Redis restarted (or flushed of its scripts) since: load it again below.
      if (!String((error as Error).message).startsWith('NOSCRIPT')) throw error;
    }
  }
  const reply = (await redis.eval(TAKE_TOKEN, keys.length, ...keys, ...args)) as TakeReply;
  scriptLoaded.add(redis);
  return reply;
}

/** Per-process buckets for when Redis is down: limits degrade to per replica, never to errors. */
class MemoryBuckets {
  private readonly buckets = new Map<string, { tokens: number; updated: number }>();

  take(key: string, capacity: number, rate: number): [boolean, number, number] {
    const now = Date.now();
    const bucket = this.buckets.get(key) ?? { tokens: capacity, updated: now };
    bucket.tokens = Math.min(capacity, bucket.tokens + (now - bucket.updated) * rate);
    bucket.updated = now;
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    this.buckets.delete(key);
    this.buckets.set(key, bucket);
    if (this.buckets.size > 10_000) this.buckets.delete(this.buckets.keys().next().value as string);
    return [allowed, bucket.tokens, now];
  }
}

export interface RateLimiter {
  take(key: string): Promise<RateLimitState>;
  /**
   * take, and in the same Redis command the score of `member` in the sorted set `set` (null when it
   * is not there), for a caller whose answer needs both. The score has no fallback: while Redis is
   * unreachable this rejects with Redis's error, after charging the per-process bucket as take does.
   */
  takeAndReadScore(key: string, set: string, member: string): Promise<{ state: RateLimitState; score: string | null }>;
}

/**
 * A token bucket per key: `points` per `windowSeconds` sustained, `burst` at once. The headers it
 * feeds describe exactly that bucket, so the 429 comes at the announced point.
 */
export function createRateLimiter(options: Omit<RateLimitOptions, 'key'>): RateLimiter {
  const capacity = options.burst ?? options.points;
  const ratePerMs = options.points / (options.windowSeconds * 1000);
  const ttlMs = Math.ceil(capacity / ratePerMs) + 1000;
  const memory = new MemoryBuckets();
  const state = (allowed: boolean, tokens: number, now: number): RateLimitState => ({
    allowed,
    limit: capacity,
    remaining: Math.max(0, Math.floor(tokens)),
    resetAt: Math.ceil((now + (capacity - tokens) / ratePerMs) / 1000),
    retryAfter: allowed ? 0 : Math.max(1, Math.ceil((1 - tokens) / ratePerMs / 1000)),
  });
  const bucket = (key: string) => `ratelimit:${options.name}:${key}`;
  return {
    async take(key) {
      try {
        const [allowed, tokens, now] = await takeToken(options.redis, [bucket(key)], [capacity, ratePerMs, ttlMs]);
        return state(allowed === 1, Number(tokens), Number(now));
      } catch {
        return state(...memory.take(key, capacity, ratePerMs));
      }
    },
    async takeAndReadScore(key, set, member) {
      try {
        const [allowed, tokens, now, score] = await takeToken(options.redis, [bucket(key), set], [capacity, ratePerMs, ttlMs, member]);
        return { state: state(allowed === 1, Number(tokens), Number(now)), score };
      } catch (error) {
        memory.take(key, capacity, ratePerMs);
        throw error;
      }
    },
  };
}

export function setRateLimitHeaders(res: Response, state: RateLimitState): void {
  res.setHeader('X-RateLimit-Limit', String(state.limit));
  res.setHeader('X-RateLimit-Remaining', String(state.remaining));
  res.setHeader('X-RateLimit-Reset', String(state.resetAt));
}

/** Announces the bucket's state and throws the 429 (with Retry-After) when the request is refused. */
export function enforceRateLimit(res: Response, state: RateLimitState): void {
  setRateLimitHeaders(res, state);
  if (!state.allowed) throw tooManyRequests('Too many requests; try again later', state.retryAfter);
}

export const defaultRateLimitKey = (req: Request): string => req.auth?.sub ?? req.ip ?? 'unknown';

/** Express middleware: X-RateLimit-* on every answer, 429 with Retry-After past the limit. */
export function rateLimit(options: RateLimitOptions): RequestHandler {
  const limiter = createRateLimiter(options);
  const key = options.key ?? defaultRateLimitKey;
  return async (req, res, next) => {
    try {
      enforceRateLimit(res, await limiter.take(key(req)));
      next();
    } catch (error) {
      next(error);
    }
  };
}
