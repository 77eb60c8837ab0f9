import { z } from 'zod';

export const ConnectionType = z.enum(['server', 'client']);
export const ConnectionProtocol = z.enum(['stdio', 'http', 'websocket']);
export const ConnectionStatus = z.enum(['active', 'idle', 'disconnected', 'error']);
export const HealthStatus = z.enum(['healthy', 'degraded', 'initializing', 'error']);
export type ConnectionProtocol = z.infer<typeof ConnectionProtocol>;
export type ConnectionStatus = z.infer<typeof ConnectionStatus>;
export type HealthStatus = z.infer<typeof HealthStatus>;

/** stdio: the program and its arguments; http / websocket: the server's URL. */
export const ConnectionEndpoint = z
  .object({
    command: z.string().min(1).max(512).optional(),
    args: z.array(z.string().max(4096)).max(64).optional(),
    url: z.string().url().max(2048).optional(),
    headers: z.record(z.string(), z.string().max(4096)).optional(),
  })
  .strict();
export type ConnectionEndpoint = z.infer<typeof ConnectionEndpoint>;

export const HealthCheckSettings = z
  .object({
    enabled: z.boolean().default(true),
    /** Seconds between scheduled checks. */
    interval: z.number().int().min(5).max(86_400).default(30),
    /** Milliseconds a check may take. */
    timeout: z.number().int().min(100).max(120_000).default(5000),
  })
  .strict();

export const ConnectionMetadata = z
  .object({ version: z.string().optional(), owner: z.string().optional(), environment: z.string().optional() })
  .catchall(z.unknown());

const CapabilityName = z.string().min(1).max(200);

export const RegisterConnectionRequest = z
  .object({
    name: z.string().min(1).max(200),
    type: ConnectionType.default('server'),
    protocol: ConnectionProtocol,
    endpoint: ConnectionEndpoint,
    capabilities: z.array(CapabilityName).max(500).default([]),
    metadata: ConnectionMetadata.default({}),
    healthCheck: HealthCheckSettings.default({ enabled: true, interval: 30, timeout: 5000 }),
    /** Concurrent requests the connection takes (beyond spec 3): the denominator of `load`. */
    capacity: z.number().int().min(1).max(10_000).optional(),
    /** A team of the caller to share it with (members read it; editors change it and call its tools). */
    team: z.string().min(1).max(200).optional(),
  })
  .superRefine((value, ctx) => {
    const { protocol, endpoint } = value;
    if (protocol === 'stdio') {
      if (!endpoint.command) ctx.addIssue({ code: 'custom', path: ['endpoint', 'command'], message: 'a stdio connection needs endpoint.command' });
      if (endpoint.url) ctx.addIssue({ code: 'custom', path: ['endpoint', 'url'], message: 'a stdio connection takes no url' });
      return;
    }
    if (!endpoint.url) {
      ctx.addIssue({ code: 'custom', path: ['endpoint', 'url'], message: `a ${protocol} connection needs endpoint.url` });
      return;
    }
    // Refinements run even when the url check above failed: never let an invalid URL throw here.
    if (!URL.canParse(endpoint.url)) return;
    const scheme = new URL(endpoint.url).protocol;
    const allowed = protocol === 'http' ? ['http:', 'https:'] : ['ws:', 'wss:'];
    if (!allowed.includes(scheme))
      ctx.addIssue({ code: 'custom', path: ['endpoint', 'url'], message: `a ${protocol} connection needs a ${allowed.join(' or ')} url` });
    if (endpoint.command || endpoint.args)
      ctx.addIssue({ code: 'custom', path: ['endpoint', 'command'], message: `a ${protocol} connection takes no command` });
  });
export type RegisterConnectionRequest = z.infer<typeof RegisterConnectionRequest>;

export const UpdateConnectionRequest = z
  .object({
    status: ConnectionStatus.optional(),
    metadata: ConnectionMetadata.optional(),
    // No defaults here: a partial change must not reset the settings it leaves out.
    healthCheck: z
      .object({ enabled: z.boolean(), interval: z.number().int().min(5).max(86_400), timeout: z.number().int().min(100).max(120_000) })
      .partial()
      .strict()
      .optional(),
    capacity: z.number().int().min(1).max(10_000).optional(),
  })
  .strict()
  .refine((value) => Object.keys(value).length > 0, { message: 'give at least one of status, metadata, healthCheck, capacity' });
export type UpdateConnectionRequest = z.infer<typeof UpdateConnectionRequest>;

export const ListConnectionsQuery = z.object({
  status: ConnectionStatus.optional(),
  type: ConnectionType.optional(),
  protocol: ConnectionProtocol.optional(),
  capability: z.string().min(1).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});

export const ConnectionIdParams = z.object({ connectionId: z.string().uuid() });

const ListHealth = z.object({
  status: HealthStatus,
  lastCheck: z.string().nullable(),
  uptime: z.number().int(),
  errorRate: z.number(),
});

export const ConnectionListItem = z.object({
  id: z.string(),
  name: z.string(),
  type: ConnectionType,
  protocol: ConnectionProtocol,
  status: ConnectionStatus,
  capabilities: z.array(z.string()),
  endpoint: ConnectionEndpoint,
  metadata: z.record(z.string(), z.unknown()),
  healthCheck: z.object({ enabled: z.boolean(), interval: z.number().int(), timeout: z.number().int() }),
  health: ListHealth,
  metrics: z.object({ requestsPerMinute: z.number(), averageLatency: z.number(), activeConnections: z.number().int() }),
  /** The subject that registered it; null for connections from before owners (admin-only). */
  owner: z.string().nullable(),
  /** The team it is shared with, if any. */
  team: z.string().nullable(),
  createdAt: z.string(),
  lastActiveAt: z.string(),
});
export type ConnectionListItem = z.infer<typeof ConnectionListItem>;

export const CapabilityDetail = z.object({ name: z.string(), description: z.string(), schema: z.record(z.string(), z.unknown()) });

export const ConnectionDetail = ConnectionListItem.omit({ capabilities: true, health: true, metrics: true }).extend({
  capabilities: z.array(CapabilityDetail),
  capacity: z.number().int(),
  health: ListHealth.extend({
    checksPerformed: z.number().int(),
    failedChecks: z.number().int(),
    responseTime: z.number().nullable(),
    lastError: z.string().nullable(),
  }),
  metrics: z.object({
    totalRequests: z.number().int(),
    successRate: z.number(),
    averageLatency: z.number(),
    p95Latency: z.number(),
    errorRate: z.number(),
    requestsPerMinute: z.number(),
    activeRequests: z.number().int(),
  }),
  disconnectedAt: z.string().nullable(),
});
export type ConnectionDetail = z.infer<typeof ConnectionDetail>;

export const ListConnectionsResponse = z.object({
  connections: z.array(ConnectionListItem),
  total: z.number().int(),
  filtered: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});

export const RegisterConnectionResponse = z.object({
  id: z.string(),
  name: z.string(),
  status: ConnectionStatus,
  connection: z.object({
    id: z.string(),
    type: ConnectionType,
    protocol: ConnectionProtocol,
    capabilities: z.array(z.string()),
    health: z.object({ status: HealthStatus, lastCheck: z.string().nullable(), uptime: z.number().int(), errorRate: z.number() }),
  }),
  owner: z.string().nullable(),
  team: z.string().nullable(),
  createdAt: z.string(),
});

export const DisconnectResponse = z.object({
  id: z.string(),
  status: z.literal('disconnected'),
  message: z.string(),
  disconnectedAt: z.string(),
});
export type ListConnectionsQueryType = z.infer<typeof ListConnectionsQuery>;
