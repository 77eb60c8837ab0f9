import { z } from 'zod';
import { ConnectionEndpoint, ConnectionProtocol, ConnectionStatus, HealthStatus } from './connection';

export const LoadBalancingStrategy = z.enum(['least-loaded', 'round-robin', 'none']);

export const DiscoverRequest = z.object({
  capabilities: z.array(z.string().min(1)).max(100).default([]),
  filters: z
    .object({
      /** A health status (`healthy`, ...) or a connection status (`active`, ...). */
      status: z.union([HealthStatus, ConnectionStatus]).optional(),
      protocol: ConnectionProtocol.optional(),
      /** Seconds the connection has answered without interruption. */
      minUptime: z.number().int().min(0).optional(),
    })
    .default({}),
  loadBalancing: z.object({ strategy: LoadBalancingStrategy.default('least-loaded'), maxConnections: z.number().int().min(1).max(1000).optional() }).optional(),
});

export const DiscoverResponse = z.object({
  connections: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      protocol: ConnectionProtocol,
      capabilities: z.array(z.string()),
      health: z.object({ status: HealthStatus, uptime: z.number().int() }),
      load: z.number(),
      endpoint: ConnectionEndpoint,
    }),
  ),
  totalMatching: z.number().int(),
  loadBalanced: z.boolean(),
  strategy: z.string(),
});

export const CapabilitiesResponse = z.object({
  capabilities: z.array(
    z.object({ name: z.string(), description: z.string(), providers: z.number().int(), totalRequests: z.number().int(), averageLatency: z.number() }),
  ),
  totalCapabilities: z.number().int(),
});

export const ToolCallParams = z.object({ connectionId: z.string().uuid(), tool: z.string().min(1).max(200) });
export const ToolCallRequest = z.object({
  arguments: z.record(z.string(), z.unknown()).default({}),
  /** Milliseconds; the connection's health-check timeout by default. */
  timeout: z.number().int().min(100).max(300_000).optional(),
});
export const ToolCallResponse = z.object({
  connectionId: z.string(),
  tool: z.string(),
  success: z.boolean(),
  latency: z.number(),
  result: z.object({ content: z.array(z.unknown()), structuredContent: z.unknown().optional(), isError: z.boolean().optional() }).loose(),
});
export type ToolCallResult = z.infer<typeof ToolCallResponse>['result'];
