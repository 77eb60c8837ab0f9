import { z } from 'zod';
import { HealthStatus } from './connection';

export const HealthCheckResponse = z.object({
  connectionId: z.string(),
  health: z.object({ status: HealthStatus, responseTime: z.number(), timestamp: z.string() }),
  diagnostics: z.object({
    processRunning: z.boolean(),
    memoryUsage: z.string(),
    cpuUsage: z.number(),
    activeRequests: z.number().int(),
    pid: z.number().int().nullable(),
    restarts: z.number().int(),
    tools: z.number().int(),
  }),
  error: z.string().optional(),
});
export type HealthCheckResponse = z.infer<typeof HealthCheckResponse>;

export const BatchHealthCheckRequest = z.object({
  connectionIds: z.array(z.string().uuid()).min(1).max(500),
  /** Per-check timeout in milliseconds; each connection's own timeout when absent. */
  timeout: z.number().int().min(100).max(120_000).optional(),
});

export const BatchHealthCheckResponse = z.object({
  results: z.array(z.object({ connectionId: z.string(), status: HealthStatus, responseTime: z.number(), error: z.string().optional() })),
  summary: z.object({ total: z.number().int(), healthy: z.number().int(), unhealthy: z.number().int() }),
});
