import { createRateLimiter, setRateLimitHeaders, tooManyRequests, type RateLimitState } from '@platform/http';
import type { Request, RequestHandler } from 'express';
import type { Redis } from 'ioredis';
import { createHash } from 'node:crypto';

export interface LoginRateLimitOptions {
  redis: Redis;
  name: string;
  /** Attempts per account in the window: the limit that holds whatever address the caller has. */
  accountPoints: number;
  /** Attempts per client address in the window (the address as TRUST_PROXY resolves it). */
  ipPoints: number;
  windowSeconds: number;
  /** The account a request tries to sign in to, when its body names one. */
  account: (req: Request) => string | undefined;
}

/** The username of a login body (lowercased: the lockout treats `Alice` and `alice` as one). */
export const usernameOf = (req: Request): string | undefined => {
  const username = (req.body as { username?: unknown } | undefined)?.username;
  return typeof username === 'string' && username !== '' ? username.toLowerCase() : undefined;
};

/** The public prefix of an API key in an API-key login body (`ap_<prefix>_<secret>`). */
export const apiKeyPrefixOf = (req: Request): string | undefined => {
  const key = (req.body as { api_key?: unknown } | undefined)?.api_key;
  return typeof key === 'string' ? /^ap_([A-Za-z0-9]{12})_/.exec(key)?.[1] : undefined;
};

/**
 * Login attempts are limited per address and per account: behind a shared proxy one address is
 * many people, and one account is attacked from many addresses. The headers describe whichever
 * bucket is nearer its end; 429 comes when either is empty.
 */
export function loginRateLimit(options: LoginRateLimitOptions): RequestHandler {
  const { redis, name, windowSeconds } = options;
  const perIp = createRateLimiter({ redis, name, points: options.ipPoints, windowSeconds });
  const perAccount = createRateLimiter({ redis, name: `${name}-account`, points: options.accountPoints, windowSeconds });
  return async (req, res, next) => {
    const byIp = await perIp.take(req.ip ?? 'unknown');
    const account = options.account(req);
    // Accounts are keyed by a hash: Redis keys of a bounded length that name no one.
    const byAccount = byIp.allowed && account ? await perAccount.take(createHash('sha256').update(account).digest('hex').slice(0, 32)) : undefined;
    const states = [byIp, byAccount].filter((state): state is RateLimitState => state !== undefined);
    const refused = states.find((state) => !state.allowed);
    setRateLimitHeaders(res, refused ?? states.reduce((tighter, state) => (state.remaining < tighter.remaining ? state : tighter)));
    next(refused ? tooManyRequests('Too many login attempts; try again later', refused.retryAfter) : undefined);
  };
}
