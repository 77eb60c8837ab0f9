import { ApiError, badRequest, notFound } from '@platform/http';
import { z } from 'zod';

/** The services the console reaches through `/api/v1/platform/{service}/…`, and where each is. */
export const platformConfig = {
  /** Per request until the upstream's answer has ended; server-sent events and WebSockets have none once open. */
  GATEWAY_PLATFORM_TIMEOUT_MS: z.coerce.number().int().min(1).default(60_000),
  /** Largest request body passed through, in bytes (the service applies its own limit too). */
  GATEWAY_PLATFORM_BODY_LIMIT: z.coerce
    .number()
    .int()
    .min(1)
    .default(10 * 1024 * 1024),
};

export const PLATFORM_SERVICES = ['auth', 'registry', 'master', 'mesh', 'workers', 'workflow-engine', 'tracing', 'mcp-registry', 'local-models'] as const;
export type PlatformService = (typeof PLATFORM_SERVICES)[number];

/** Each service's base URL, from the gateway's `<SERVICE>_URL` settings. */
export type PlatformTargets = Record<PlatformService, string>;

export interface PlatformTarget {
  service: PlatformService;
  /** The upstream URL: the service's base URL, the rest of the path and the query, as sent. */
  url: URL;
}

// `.` and `..` segments, also percent-encoded: nothing of the path may climb out of the service.
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;

/**
 * The target of a pass-through path (`/api/v1/platform/tracing/api/projects?limit=5` → the tracing
 * service's `/api/projects?limit=5`), or the answer for an unknown service or a path that is not one.
 */
export function platformTarget(prefix: string, rawUrl: string, targets: PlatformTargets): PlatformTarget {
  const queryAt = rawUrl.indexOf('?');
  const pathname = queryAt === -1 ? rawUrl : rawUrl.slice(0, queryAt);
  const search = queryAt === -1 ? '' : rawUrl.slice(queryAt);
  const rest = pathname.slice(prefix.length);
  const slash = rest.indexOf('/');
  const name = slash === -1 ? rest : rest.slice(0, slash);
  const tail = slash === -1 ? '/' : rest.slice(slash);
  if (!(PLATFORM_SERVICES as readonly string[]).includes(name))
    throw notFound(`No platform service named ${name.slice(0, 64) || '(none)'}`, { services: PLATFORM_SERVICES });
  if (tail.split('/').some((segment) => DOT_SEGMENT.test(segment)) || /\\|%5c/i.test(tail))
    throw badRequest('The path may not contain dot segments or backslashes');
  const service = name as PlatformService;
  const base = targets[service].replace(/\/+$/, '');
  return { service, url: new URL(`${base}${tail}${search}`) };
}

/** A service that cannot be reached (refused, reset, timed out): 503 naming it. */
export const dependencyUnavailable = (service: string, reason: string) =>
  new ApiError(
    503,
    'api_error',
    'dependency_unavailable',
    `${service} is unavailable; try again shortly`,
    { dependency: service, reason },
    { 'Retry-After': '5' },
  );
