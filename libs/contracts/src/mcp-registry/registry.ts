import { z } from 'zod';
import { QueryBoolean } from '../paging';
import { ConnectionEndpoint, ConnectionMetadata, ConnectionProtocol, ConnectionType, HealthCheckSettings } from './connection';

export const RegistryStatsResponse = z.object({
  timestamp: z.string(),
  connections: z.object({ total: z.number().int(), active: z.number().int(), idle: z.number().int(), disconnected: z.number().int(), error: z.number().int() }),
  protocols: z.object({ stdio: z.number().int(), http: z.number().int(), websocket: z.number().int() }),
  capabilities: z.object({ total: z.number().int(), mostUsed: z.array(z.object({ name: z.string(), requests: z.number().int() })) }),
  performance: z.object({ averageLatency: z.number(), requestsPerSecond: z.number(), errorRate: z.number() }),
});

export const ExportedConnection = z.object({
  name: z.string().min(1).max(200),
  type: ConnectionType,
  protocol: ConnectionProtocol,
  endpoint: ConnectionEndpoint,
  capabilities: z.array(z.string()),
  metadata: ConnectionMetadata.optional(),
  healthCheck: HealthCheckSettings.optional(),
  capacity: z.number().int().min(1).max(10_000).optional(),
});

export const RegistryExportQuery = z
  .object({
    /** Header values as stored (credentials, often): `mcp:admin` only. Redacted otherwise. */
    includeSecrets: QueryBoolean.default(false),
  })
  .strict();

export const RegistryExport = z.object({
  version: z.string(),
  exportedAt: z.string(),
  /** Whether header values are as stored (`includeSecrets=true`, admins) or `[redacted]`. */
  secretsIncluded: z.boolean(),
  connections: z.array(ExportedConnection),
  totalExported: z.number().int(),
});

export const RegistryImportRequest = z.object({
  version: z.string().optional(),
  exportedAt: z.string().optional(),
  connections: z.array(ExportedConnection).max(5000),
  totalExported: z.number().int().optional(),
  /** `skip` leaves a connection of the same name alone; `replace` updates it. */
  onConflict: z.enum(['skip', 'replace']).default('skip'),
});

export const RegistryImportResponse = z.object({
  imported: z.array(z.object({ id: z.string(), name: z.string() })),
  updated: z.array(z.object({ id: z.string(), name: z.string() })),
  skipped: z.array(z.object({ name: z.string(), reason: z.string() })),
  errors: z.array(z.object({ name: z.string(), error: z.string() })),
});

export const LoadDistributionResponse = z.object({
  strategy: z.string(),
  connections: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      load: z.number(),
      activeRequests: z.number().int(),
      capacity: z.number().int(),
      requestsPerMinute: z.number(),
    }),
  ),
  recommendations: z.array(z.object({ action: z.string(), reason: z.string(), suggestedConnections: z.array(z.string()) })),
});

export const CmsSyncRequest = z.object({
  /** The JSON:API collection of MCP connections on the CMS, e.g. https://cms.example/jsonapi/mcp_connection. */
  cmsEndpoint: z
    .string()
    .url()
    .refine((url) => URL.canParse(url) && /^https?:$/.test(new URL(url).protocol), 'must be an http(s) URL'),
  /** Sent as `Authorization: Bearer <apiKey>`: an HTTP header value holds Latin-1 text only. */
  apiKey: z
    .string()
    .min(1)
    .max(4096)
    .regex(/^[\x20-\x7e\x80-\xff]*$/, 'must be printable Latin-1 text (it is sent in an HTTP header)'),
  syncMode: z.enum(['bidirectional', 'push', 'pull']).default('bidirectional'),
});

export const CmsSyncResponse = z.object({
  syncMode: z.string(),
  cmsEndpoint: z.string(),
  pushed: z.object({ created: z.number().int(), updated: z.number().int(), unchanged: z.number().int() }),
  pulled: z.object({ created: z.number().int(), unchanged: z.number().int() }),
  errors: z.array(z.object({ name: z.string(), error: z.string() })),
  syncedAt: z.string(),
});

export const RegistryHealthExtra = z.object({
  registry: z.object({ connections: z.number().int(), healthy: z.number().int(), unhealthy: z.number().int() }),
  performance: z.object({ requestsPerSecond: z.number(), averageLatency: z.number() }),
});
