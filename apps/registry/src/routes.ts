import type { RequestHandler } from 'express';
import type { UsageCounter } from './analytics/usage-counter';

/** What every router of the service is given besides its own service. */
export interface RouteContext {
  /** Spec 2's agent-service rate limit, run after authentication (counted per token subject). */
  limit: RequestHandler[];
  usage: UsageCounter;
}
