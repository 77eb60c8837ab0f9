import { z } from 'zod';
import { PageQuery } from '../paging';

/**
 * Request and response bodies of the agent mesh (spec 3, "Supporting service: agent mesh"), plus
 * the registration and send bodies the spec lacks (apps/mesh/README.md).
 */
// eslint-disable-next-line no-control-regex
const PLAIN_TEXT = /^[^\u0000-\u001f\u007f]*$/;
const plain = (max: number) => z.string().min(1).max(max).regex(PLAIN_TEXT, 'no control characters');

export const MeshAgentId = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]*$/, 'letters, digits, dot, colon, underscore and hyphen');
export const MeshCapability = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:/-]*$/, 'letters, digits and . _ : / -');
export const MeshUrl = z
  .string()
  .max(2048)
  .url()
  .refine((value) => /^https?:\/\//i.test(value), 'an http(s) URL');
export const MeshGrpcTarget = z
  .string()
  .min(3)
  .max(512)
  .regex(/^[A-Za-z0-9.\-[\]:]+:\d{1,5}$/, 'host:port');

export const AgentParams = z.object({ agent_id: MeshAgentId });

export const HealthCheckSpec = z
  .object({
    type: z.enum(['http', 'grpc', 'ttl']).default('ttl'),
    /** `http`: the URL answered with 2xx; `grpc`: host:port serving grpc.health.v1. */
    target: z.string().max(2048).optional(),
    /** `ttl`: the agent heartbeats at least this often. */
    ttl_ms: z.number().int().min(1000).max(3_600_000).default(30_000),
  })
  .strict()
  .superRefine((check, ctx) => {
    if (check.type === 'http' && !MeshUrl.safeParse(check.target).success)
      ctx.addIssue({ code: 'custom', path: ['target'], message: 'an http(s) URL is required for an http check' });
    if (check.type === 'grpc' && !MeshGrpcTarget.safeParse(check.target).success)
      ctx.addIssue({ code: 'custom', path: ['target'], message: 'host:port is required for a grpc check' });
  });

export const RegisterAgentBody = z
  .object({
    id: MeshAgentId.optional(),
    name: plain(200),
    namespace: plain(63).default('default'),
    capabilities: z.array(MeshCapability).max(100).default([]),
    endpoint: MeshUrl.optional(),
    check: HealthCheckSpec.optional(),
    metadata: z.record(z.string().max(128), z.unknown()).default({}),
    /** A team to share the agent with (only an editor of that team may); re-registering without it keeps the agent's team. */
    team: z.string().min(1).max(128).regex(PLAIN_TEXT, 'no control characters').optional(),
  })
  .strict()
  .refine((body) => JSON.stringify(body.metadata).length <= 16_384, { path: ['metadata'], message: 'at most 16 KiB' });
export type RegisterAgentBody = z.infer<typeof RegisterAgentBody>;

export const AgentStatus = z.enum(['passing', 'warning', 'critical']);
export const MeshAgent = z.object({
  id: z.string(),
  name: z.string(),
  namespace: z.string(),
  capabilities: z.array(z.string()),
  endpoint: z.string().nullable(),
  check: z.object({ type: z.string(), target: z.string().nullable(), ttl_ms: z.number() }),
  metadata: z.record(z.string(), z.unknown()),
  status: AgentStatus,
  ejected: z.boolean(),
  consecutive_failures: z.number().int(),
  consecutive_passes: z.number().int(),
  critical_since: z.string().nullable(),
  last_heartbeat_at: z.string().nullable(),
  last_check_at: z.string().nullable(),
  latency_ms: z.number().nullable(),
  node_id: z.string().nullable(),
  /** Who registered it (the token's subject); null for agents registered before owners were recorded. */
  owner: z.string().nullable(),
  team: z.string().nullable(),
  subscribed: z.boolean(),
  registered_at: z.string(),
  updated_at: z.string(),
});
export type MeshAgent = z.infer<typeof MeshAgent>;

export const AgentListQuery = PageQuery.extend({
  capability: MeshCapability.optional(),
  namespace: plain(63).optional(),
  status: AgentStatus.optional(),
  ejected: z
    .enum(['true', 'false'])
    .transform((value) => value === 'true')
    .optional(),
}).strict();
export const AgentList = z.object({ agents: z.array(MeshAgent), total: z.number().int(), limit: z.number().int(), offset: z.number().int() });
export const AgentCount = z.object({
  total: z.number().int(),
  passing: z.number().int(),
  warning: z.number().int(),
  critical: z.number().int(),
  ejected: z.number().int(),
  routable: z.number().int(),
});

export const ReregisterBody = z.object({ agent_ids: z.array(MeshAgentId).max(1000).optional() }).strict();
export const ReregisterResult = z.object({ reset: z.number().int(), notified: z.number().int() });

/** `PUT /agents/{id}/health`: the agent reports itself. */
export const SelfReportBody = z.object({ status: z.enum(['healthy', 'warning', 'unhealthy', 'critical']), output: z.string().max(1000).optional() }).strict();
export const HealthCheckRecord = z.object({
  kind: z.string(),
  status: z.string(),
  latency_ms: z.number().nullable(),
  output: z.string().nullable(),
  checked_at: z.string(),
});
export const HealthHistory = z.object({
  agent_id: z.string(),
  checks: z.array(HealthCheckRecord),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});

export const HealthChecksConfig = z.object({
  health_check_interval_ms: z.number().int().min(100).max(3_600_000),
  health_check_timeout_ms: z.number().int().min(50).max(60_000),
});
export const HealthChecksConfigBody = HealthChecksConfig.partial()
  .strict()
  .refine((body) => Object.keys(body).length > 0, 'at least one key');

export const MeshSettings = HealthChecksConfig.extend({
  /** Failed checks in a row that eject an agent from routing. */
  ejection_failures: z.number().int().min(1).max(100),
  /** Passing checks in a row that readmit an ejected agent. */
  readmission_passes: z.number().int().min(1).max(100),
  /** How long an agent may stay critical before it is deregistered. */
  deregister_critical_after_ms: z
    .number()
    .int()
    .min(1000)
    .max(30 * 86_400_000),
  /** Delivery attempts before a message becomes a dead letter. */
  max_delivery_attempts: z.number().int().min(1).max(50),
  /** First retry delay; doubles each attempt. */
  retry_backoff_ms: z.number().int().min(10).max(3_600_000),
  /** How long a subscriber has to acknowledge before the message is redelivered. */
  ack_timeout_ms: z.number().int().min(50).max(600_000),
  /** Window in which a repeated message id is accepted once. */
  dedupe_window_ms: z
    .number()
    .int()
    .min(1000)
    .max(7 * 86_400_000),
  /** Time to live of a message sent without `ttl_ms`. */
  default_ttl_ms: z
    .number()
    .int()
    .min(1000)
    .max(30 * 86_400_000),
});
export type MeshSettings = z.infer<typeof MeshSettings>;
export const MeshSettingsBody = MeshSettings.partial()
  .strict()
  .refine((body) => Object.keys(body).length > 0, 'at least one key');

export const SendMessageBody = z
  .object({
    message_id: z.string().min(1).max(200).regex(PLAIN_TEXT, 'no control characters').optional(),
    to: MeshAgentId.optional(),
    capability: MeshCapability.optional(),
    from: plain(200).optional(),
    payload: z.unknown(),
    ttl_ms: z
      .number()
      .int()
      .min(1000)
      .max(30 * 86_400_000)
      .optional(),
  })
  .strict()
  .refine((body) => (body.to === undefined) !== (body.capability === undefined), { message: 'exactly one of `to` and `capability`', path: ['to'] })
  .refine((body) => body.payload !== undefined, { message: 'payload is required', path: ['payload'] })
  .refine((body) => JSON.stringify(body.payload ?? null).length <= 256 * 1024, { message: 'at most 256 KiB', path: ['payload'] });
export type SendMessageBody = z.infer<typeof SendMessageBody>;

export const MessageState = z.enum(['queued', 'delivering', 'acked', 'dead', 'expired']);
export const MeshMessage = z.object({
  id: z.string(),
  message_id: z.string(),
  from: z.string().nullable(),
  agent_id: z.string(),
  capability: z.string().nullable(),
  payload: z.unknown(),
  /** The subject of the token that sent it (null before senders were recorded). */
  sent_by: z.string().nullable(),
  state: MessageState,
  attempts: z.number().int(),
  last_error: z.string().nullable(),
  dead_reason: z.string().nullable(),
  expires_at: z.string().nullable(),
  created_at: z.string(),
  delivered_at: z.string().nullable(),
  acked_at: z.string().nullable(),
});
export type MeshMessage = z.infer<typeof MeshMessage>;
export const SendResult = z.object({ id: z.string(), message_id: z.string(), agent_id: z.string(), state: MessageState, duplicate: z.boolean() });
export const MessageListQuery = PageQuery.extend({
  state: MessageState.optional(),
  agent_id: MeshAgentId.optional(),
  capability: MeshCapability.optional(),
  message_id: z.string().min(1).max(200).optional(),
  since: z.iso.datetime({ offset: true }).optional(),
}).strict();
export const MessageList = z.object({ messages: z.array(MeshMessage), total: z.number().int(), limit: z.number().int(), offset: z.number().int() });
export const ExportQuery = MessageListQuery.omit({ limit: true, offset: true })
  .extend({ limit: z.coerce.number().int().min(1).max(1_000_000).default(100_000) })
  .strict();
export const DedupeResult = z.object({
  removed: z.number().int(),
  duplicates: z.array(z.object({ message_id: z.string(), kept: z.string(), removed: z.array(z.string()) })),
});

export const DlqRetryBody = z
  .object({ ids: z.array(z.string().uuid()).min(1).max(1000).optional(), all: z.boolean().optional() })
  .strict()
  .refine((body) => Boolean(body.ids) !== Boolean(body.all), 'either `ids` or `all: true`');
export const DlqRetryResult = z.object({ retried: z.number().int(), ids: z.array(z.string()) });
export const PurgeQuery = z.object({ older_than: z.string().regex(/^\d{1,6}(ms|s|m|h|d)$/, 'a duration such as 90s, 15m, 1h or 7d') }).strict();
export const PurgeResult = z.object({ purged: z.number().int(), older_than: z.string(), before: z.string() });
export const QueueStats = z.object({
  messages: z.record(z.string(), z.number().int()),
  queues: z.object({ waiting: z.number().int(), active: z.number().int(), delayed: z.number().int(), failed: z.number().int(), completed: z.number().int() }),
  queue_count: z.number().int(),
  in_flight: z.number().int(),
});
export const QueueDepth = z.object({ total: z.number().int(), agents: z.array(z.object({ agent_id: z.string(), depth: z.number().int() })) });

export const RoutingEntry = z.object({ agent_id: z.string(), outstanding: z.number(), latency_ewma_ms: z.number(), status: AgentStatus });
export const RoutingTable = z.object({ version: z.number().int(), built_at: z.string().nullable(), capabilities: z.record(z.string(), z.array(RoutingEntry)) });
export const CacheResult = z.object({ cleared: z.boolean(), version: z.number().int(), agents: z.number().int().optional() });

export const ClusterStatus = z.object({
  node_id: z.string(),
  leader: z.string().nullable(),
  is_leader: z.boolean(),
  term: z.number().int(),
  fencing_token: z.number().int().nullable(),
  lease_expires_in_ms: z.number().int().nullable(),
  nodes: z.number().int(),
});
export const ClusterNode = z.object({
  id: z.string(),
  host: z.string(),
  http_port: z.number().int(),
  grpc_port: z.number().int(),
  started_at: z.string(),
  last_seen_at: z.string(),
  alive: z.boolean(),
  leader: z.boolean(),
  agents: z.number().int(),
});
export const ClusterNodes = z.object({ nodes: z.array(ClusterNode) });
export const ReconcileResult = z.object({ fencing_token: z.number().int(), removed_nodes: z.array(z.string()), reassigned_agents: z.number().int() });
export const ResyncResult = z.object({ agents: z.number().int(), routing_version: z.number().int(), workers: z.number().int() });

export const DrainResult = z.object({ draining: z.literal(true), in_flight: z.number().int(), grpc_streams: z.number().int() });
export const ConnectionsActive = z.object({
  http: z.number().int(),
  websocket: z.number().int(),
  grpc_streams: z.number().int(),
  grpc_calls: z.number().int(),
  total: z.number().int(),
  draining: z.boolean(),
});
export const GrpcConnection = z.object({
  id: z.string(),
  agent_id: z.string(),
  peer: z.string(),
  since: z.string(),
  in_flight: z.number().int(),
  delivered: z.number().int(),
});
export const GrpcConnections = z.object({ streams: z.array(GrpcConnection), total: z.number().int() });
export const GrpcResetResult = z.object({ closed: z.number().int() });
export const GcResult = z.object({
  before: z.object({ heap_used: z.number(), heap_total: z.number(), rss: z.number() }),
  after: z.object({ heap_used: z.number(), heap_total: z.number(), rss: z.number() }),
  freed: z.number(),
});
export const HealthAll = z.object({
  agents: z.array(
    z.object({ agent_id: z.string(), status: AgentStatus, ejected: z.boolean(), last_check_at: z.string().nullable(), latency_ms: z.number().nullable() }),
  ),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});
export const HealthReset = z.object({ reset: z.number().int() });
export const DiscoveryStatus = z.object({
  node_id: z.string(),
  leader: z.string().nullable(),
  agents: AgentCount,
  capabilities: z.number().int(),
  routing: z.object({ version: z.number().int(), built_at: z.string().nullable(), hits: z.number().int(), rebuilds: z.number().int() }),
  health_checks: HealthChecksConfig,
  subscribers: z.number().int(),
});
