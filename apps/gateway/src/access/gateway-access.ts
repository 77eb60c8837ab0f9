import { setRateLimitHeaders, tooManyRequests, type RateLimiter } from '@platform/http';
import type { TokenVerifier } from '@platform/jwt';
import type { RequestHandler } from 'express';
import { apiKeyHash, invalidApiKey, type ApiKeyExchange } from './api-keys';

/** A JWT has three base64url segments; anything else after `Bearer` is taken as an API key. */
export const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
export const API_KEY_SHAPE = /^[\x21-\x7e]{8,256}$/;

export interface GatewayAccessOptions {
  basePath: string;
  exchange: ApiKeyExchange;
  verifier: TokenVerifier;
  limiter: RateLimiter;
  /** Hands the verification done here to the route's own check (one RS256 verification per request). */
  memo?: VerificationMemo;
}

type Claims = Awaited<ReturnType<TokenVerifier['verify']>>;

/**
 * A verifier for the routes that reuses the verification the front door just did for the same
 * request's token, and verifies anything else itself.
 */
export class VerificationMemo {
  private readonly recent = new Map<string, Promise<Claims>>();
  readonly verifier: TokenVerifier;

  constructor(private readonly inner: TokenVerifier) {
    const verifier = Object.create(inner) as TokenVerifier;
    verifier.verify = (token: string) => {
      const done = this.recent.get(token);
      if (done) {
        this.recent.delete(token);
        return done;
      }
      return inner.verify(token);
    };
    this.verifier = verifier;
  }

  verify(token: string, res: { once: (event: 'close', listener: () => void) => unknown }): Promise<Claims> {
    const verification = this.inner.verify(token);
    this.recent.set(token, verification);
    res.once('close', () => this.recent.get(token) === verification && this.recent.delete(token));
    return verification;
  }
}

/**
 * The gateway's front door, before any route: an API key (`X-API-Key`, or `Authorization: Bearer`
 * with a key) is exchanged for a platform token that replaces it on the request, so every route
 * checks tokens and permissions the same way; then the caller's bucket (per key, per user for
 * tokens, per address otherwise) is charged and `X-RateLimit-*` set on every answer. Agents'
 * replies (`/replies/<signed token>`) pass untouched.
 */
export function gatewayAccess(options: GatewayAccessOptions): RequestHandler {
  const replies = `${options.basePath}/replies/`;
  return (req, res, next) => {
    if (!req.path.startsWith(`${options.basePath}/`)) return next();
    // Agents' replies carry their own signed credential and are not callers' requests: one busy agent
    // answering from one address must not lose replies to a per-address limit (nor pay its round trip).
    if (req.path.startsWith(replies)) return next();
    void (async () => {
      const headerKey = req.headers['x-api-key'];
      const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
      // A present X-API-Key header is a key, even an empty or malformed one: it must be refused as
      // such (401 invalid_api_key), never read as "no credentials".
      const apiKey = typeof headerKey === 'string' && (headerKey || !bearer) ? headerKey : bearer && !JWT_SHAPE.test(bearer) ? bearer : undefined;
      let bucket: string;
      if (apiKey !== undefined) {
        bucket = `key:${apiKeyHash(apiKey)}`;
      } else if (bearer) {
        const claims = await (options.memo ? options.memo.verify(bearer, res) : options.verifier.verify(bearer)).catch(() => undefined);
        bucket = claims ? `user:${claims.sub}` : `ip:${req.ip}`;
      } else {
        bucket = `ip:${req.ip}`;
      }
      const state = await options.limiter.take(bucket);
      setRateLimitHeaders(res, state);
      if (!state.allowed) return next(tooManyRequests('Too many requests; try again later', state.retryAfter));
      if (apiKey !== undefined) {
        // Not shaped like any key auth issues: refused without asking auth, as auth would refuse it.
        if (!API_KEY_SHAPE.test(apiKey)) return next(invalidApiKey());
        const token = await options.exchange.token(apiKey, bucket.slice(4));
        req.headers.authorization = `Bearer ${token}`;
        delete req.headers['x-api-key'];
      }
      next();
    })().catch(next);
  };
}
