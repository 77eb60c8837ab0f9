import type { mcpRegistry } from '@platform/contracts';
import { round } from '../numbers';
import type { ConnectionRow, ToolRow } from './connections.repository';

type Endpoint = mcpRegistry.ConnectionEndpoint;

export function uptimeSeconds(row: Pick<ConnectionRow, 'upSince'>, now = Date.now()): number {
  return row.upSince ? Math.max(0, Math.floor((now - row.upSince.getTime()) / 1000)) : 0;
}

export function checkErrorRate(row: Pick<ConnectionRow, 'checksPerformed' | 'failedChecks'>): number {
  return row.checksPerformed === 0 ? 0 : round(row.failedChecks / row.checksPerformed, 4);
}

export function averageLatency(row: Pick<ConnectionRow, 'totalRequests' | 'totalLatencyMs'>): number {
  return row.totalRequests === 0 ? 0 : round(row.totalLatencyMs / row.totalRequests);
}

/** What callers see instead of a header value. */
export const REDACTED = '[redacted]';

/** Endpoint as shown to callers: header values (credentials, often) are not echoed back. */
export function publicEndpoint(endpoint: unknown): Endpoint {
  const value = (endpoint ?? {}) as Endpoint;
  return value.headers ? { ...value, headers: Object.fromEntries(Object.keys(value.headers).map((key) => [key, REDACTED])) } : value;
}

/**
 * An endpoint given back (an import of a redacted export): each `[redacted]` header value is the
 * one stored for that header, so a round trip through a redacted export loses no credential.
 */
export function restoreRedacted(given: Endpoint, stored: unknown): Endpoint {
  if (!given.headers) return given;
  const known = ((stored ?? {}) as Endpoint).headers ?? {};
  return {
    ...given,
    headers: Object.fromEntries(
      Object.entries(given.headers)
        .filter(([key, value]) => value !== REDACTED || known[key] !== undefined)
        .map(([key, value]) => [key, value === REDACTED ? known[key] : value]),
    ),
  };
}

export function health(row: ConnectionRow) {
  return {
    status: row.healthStatus as mcpRegistry.HealthStatus,
    lastCheck: row.lastCheckAt?.toISOString() ?? null,
    uptime: uptimeSeconds(row),
    errorRate: checkErrorRate(row),
  };
}

function base(row: ConnectionRow) {
  return {
    id: row.id,
    name: row.name,
    type: row.type as 'server' | 'client',
    protocol: row.protocol as mcpRegistry.ConnectionProtocol,
    status: row.status as mcpRegistry.ConnectionStatus,
    endpoint: publicEndpoint(row.endpoint),
    metadata: (row.metadata ?? {}) as Record<string, unknown>,
    healthCheck: { enabled: row.healthCheckEnabled, interval: row.healthCheckInterval, timeout: row.healthCheckTimeout },
    owner: row.owner,
    team: row.team,
    createdAt: row.createdAt.toISOString(),
    lastActiveAt: row.lastActiveAt.toISOString(),
  };
}

export function toListItem(row: ConnectionRow, live: { requestsPerMinute: number; activeRequests: number }): mcpRegistry.ConnectionListItem {
  return {
    ...base(row),
    capabilities: row.capabilityNames,
    health: health(row),
    metrics: { requestsPerMinute: live.requestsPerMinute, averageLatency: averageLatency(row), activeConnections: live.activeRequests },
  };
}

export function toDetail(
  row: ConnectionRow,
  tools: ToolRow[],
  live: { requestsPerMinute: number; activeRequests: number; p95Latency: number },
): mcpRegistry.ConnectionDetail {
  const reported = new Set(tools.map((tool) => tool.name));
  const capabilities = [
    ...tools.map((tool) => ({ name: tool.name, description: tool.description ?? '', schema: (tool.inputSchema ?? {}) as Record<string, unknown> })),
    ...row.declaredCapabilities.filter((name) => !reported.has(name)).map((name) => ({ name, description: '', schema: {} })),
  ];
  const errorRate = row.totalRequests === 0 ? 0 : round(row.failedRequests / row.totalRequests, 4);
  return {
    ...base(row),
    capabilities,
    capacity: row.capacity,
    health: {
      ...health(row),
      checksPerformed: row.checksPerformed,
      failedChecks: row.failedChecks,
      responseTime: row.lastResponseTime,
      lastError: row.lastError,
    },
    metrics: {
      totalRequests: row.totalRequests,
      successRate: row.totalRequests === 0 ? 1 : round(1 - errorRate, 4),
      averageLatency: averageLatency(row),
      p95Latency: round(live.p95Latency),
      errorRate,
      requestsPerMinute: live.requestsPerMinute,
      activeRequests: live.activeRequests,
    },
    disconnectedAt: row.disconnectedAt?.toISOString() ?? null,
  };
}
