import { z } from 'zod';
import { PageQuery } from '../paging';

/** The 16 components of spec 3's component library. */
export const ComponentType = z.enum([
  'LLMNode',
  'VectorSearch',
  'Embeddings',
  'ImageGen',
  'EntityCreate',
  'EntityLoad',
  'EntityUpdate',
  'UserLogin',
  'MCPToolCall',
  'MCPServerQuery',
  'FileSystemRead',
  'ScmAPI',
  'Condition',
  'Loop',
  'Parallel',
  'Merge',
]);
export type ComponentType = z.infer<typeof ComponentType>;

const Id = z.string().regex(/^[A-Za-z][A-Za-z0-9_-]{0,63}$/, 'letters, digits, _ and -, starting with a letter, at most 64');

export const NodeRetry = z.object({
  enabled: z.boolean().default(true),
  /** Attempts in all, the first included. */
  maxAttempts: z.number().int().min(1).max(100).default(3),
  backoff: z.literal('exponential').default('exponential'),
  /** Milliseconds before the second attempt; doubled for each further one, with jitter, uncapped. */
  initialDelay: z.number().int().min(0).max(3_600_000).default(1000),
});
export type NodeRetry = z.infer<typeof NodeRetry>;

export const FlowNode = z.object({
  id: Id,
  type: z.string().max(64),
  position: z.object({ x: z.number(), y: z.number() }).default({ x: 0, y: 0 }),
  data: z.record(z.string(), z.unknown()).default({}),
  retry: NodeRetry.optional(),
});
export type FlowNode = z.infer<typeof FlowNode>;

export const FlowEdge = z.object({
  id: z.string().max(128).optional(),
  source: z.string().max(64),
  target: z.string().max(64),
  /** From a Condition: `true` or `false`, the branch this edge follows. */
  sourceHandle: z.enum(['true', 'false']).optional(),
});
export type FlowEdge = z.infer<typeof FlowEdge>;

export const Flow = z.object({ nodes: z.array(FlowNode).min(1).max(200), edges: z.array(FlowEdge).max(1000).default([]) });
export type Flow = z.infer<typeof Flow>;

const Text = (max: number) => z.string().trim().min(1).max(max);

/** A team id to share a new resource with (the caller must be an editor of it). */
const TeamId = z.string().min(1).max(128);
/** Who a resource belongs to (DESIGN.md, "Who owns what"): `owner` null for rows stored before owners were. */
const Ownership = { owner: z.string().nullable(), team: z.string().nullable() };

export const CreateWorkflowRequest = z
  .object({
    name: Text(200),
    description: z.string().max(2000).default(''),
    category: Text(64),
    tags: z.array(Text(64)).max(20).default([]),
    /** Start from a shipped template: its flow is used when `flow` is not given. */
    templateId: z.string().max(128).optional(),
    flow: Flow.optional(),
    /** Share the workflow with a team: its viewers read it and its runs, its editors also run it. */
    team: TeamId.optional(),
  })
  .refine((body) => body.flow || body.templateId, { message: 'flow or templateId is required', path: ['flow'] });
export type CreateWorkflowRequest = z.infer<typeof CreateWorkflowRequest>;

export const WorkflowCreated = z.object({
  id: z.string(),
  name: z.string(),
  status: z.string(),
  version: z.string(),
  createdAt: z.string(),
  endpoints: z.object({ execute: z.string(), monitor: z.string() }),
  ...Ownership,
  /** The Standard Webhooks secret (`whsec_...`) that signs this workflow's callbacks; shown once. */
  webhookSecret: z.string(),
});

export const WorkflowParams = z.object({ workflowId: z.string().uuid() });

export const CatalogQuery = PageQuery.extend({
  category: z.string().max(64).optional(),
  complexity: z.enum(['simple', 'intermediate', 'advanced']).optional(),
});
export const CatalogEntry = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  category: z.string(),
  complexity: z.string(),
  components: z.number().int(),
  estimatedDuration: z.number(),
  tags: z.array(z.string()),
  ...Ownership,
});
export const CatalogResponse = z.object({ workflows: z.array(CatalogEntry), total: z.number().int(), limit: z.number().int(), offset: z.number().int() });

/** A stored workflow with its flow (`GET /workflows/{id}`): what an editor opens. */
export const WorkflowDetail = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  category: z.string(),
  complexity: z.string(),
  tags: z.array(z.string()),
  status: z.string(),
  version: z.string(),
  createdAt: z.string(),
  flow: Flow,
  ...Ownership,
});
export type WorkflowDetail = z.infer<typeof WorkflowDetail>;

/** One run in a workflow's execution history (`GET /workflows/{id}/executions`), newest first. */
export const ExecutionSummary = z.object({
  executionId: z.string(),
  workflowId: z.string(),
  status: z.enum(['queued', 'running', 'completed', 'failed']),
  startedAt: z.string(),
  completedAt: z.string().nullable(),
  duration: z.number().nullable(),
  batchId: z.string().nullable(),
  ...Ownership,
  /** The W3C trace the run belongs to; null when none was recorded (a batch item, tracing off). */
  traceId: z.string().nullable().optional(),
});
export type ExecutionSummary = z.infer<typeof ExecutionSummary>;
export const ExecutionHistory = z.object({
  executions: z.array(ExecutionSummary),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});

/** A component of the library (`GET /components`): its node `data` as a JSON Schema, and its outputs. */
export const ComponentInfo = z.object({
  type: ComponentType,
  group: z.enum(['AI', 'CMS', 'MCP', 'Logic']),
  description: z.string(),
  outputs: z.array(z.string()),
  /** JSON Schema (draft 2020-12) of the node's `data`, as accepted on input (defaults optional). */
  inputSchema: z.record(z.string(), z.unknown()),
});
export type ComponentInfo = z.infer<typeof ComponentInfo>;
export const ComponentsResponse = z.object({ components: z.array(ComponentInfo) });

export const Template = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  category: z.string(),
  components: z.number().int(),
  usageCount: z.number().int(),
  tags: z.array(z.string()),
  flow: Flow,
});
export const TemplatesResponse = z.object({ templates: z.array(Template) });

const CallbackUrl = z
  .string()
  .url()
  .max(2048)
  .regex(/^https?:\/\//, 'an http or https URL');

export const ExecuteRequest = z.object({
  /** Keyed by node id: values merged over that node's `data`. */
  inputs: z.record(z.string(), z.record(z.string(), z.unknown())).default({}),
  options: z
    .object({
      async: z.boolean().default(true),
      callbacks: z.object({ onComplete: CallbackUrl.optional(), onError: CallbackUrl.optional() }).default({}),
    })
    .default({ async: true, callbacks: {} }),
});
export type ExecuteRequest = z.infer<typeof ExecuteRequest>;

export const ExecutionAccepted = z.object({
  executionId: z.string(),
  workflowId: z.string(),
  status: z.string(),
  startedAt: z.string(),
  estimatedDuration: z.number(),
  monitorUrl: z.string(),
});

export const NodeRunStatus = z.enum(['pending', 'running', 'completed', 'failed', 'skipped']);

export const ExecutionError = z.object({ nodeId: z.string(), attempt: z.number().int(), message: z.string(), code: z.string(), retryable: z.boolean() });

export const Execution = z.object({
  executionId: z.string(),
  workflowId: z.string(),
  status: z.enum(['queued', 'running', 'completed', 'failed']),
  startedAt: z.string(),
  completedAt: z.string().nullable(),
  duration: z.number().nullable(),
  estimatedDuration: z.number(),
  nodes: z.array(
    z.object({
      nodeId: z.string(),
      status: NodeRunStatus,
      duration: z.number().nullable(),
      attempts: z.number().int(),
      modelUsed: z.string().optional(),
      tokensUsed: z.number().int().optional(),
      entityCreated: z.string().optional(),
    }),
  ),
  result: z.record(z.string(), z.unknown()),
  error: ExecutionError.optional(),
  retryable: z.boolean().optional(),
  /** Who started it (a batch item: who started the batch) and its workflow's team. */
  owner: z.string().nullable().optional(),
  team: z.string().nullable().optional(),
  /** The W3C trace the run belongs to; null when none was recorded (a batch item, tracing off). */
  traceId: z.string().nullable().optional(),
});
export type Execution = z.infer<typeof Execution>;

export const ExecutionParams = z.object({ executionId: z.string().uuid() });

export const BatchRequest = z.object({
  inputs: z
    .array(z.record(z.string(), z.record(z.string(), z.unknown())))
    .min(1)
    .max(1000),
  options: z
    .object({
      concurrency: z.number().int().min(1).max(50).default(5),
      /** `continue` runs every item whatever fails; `stop` starts no new item after a failure. */
      failureMode: z.enum(['continue', 'stop']).default('continue'),
      progressCallback: CallbackUrl.optional(),
    })
    .default({ concurrency: 5, failureMode: 'continue' }),
});

export const Batch = z.object({
  batchId: z.string(),
  workflowId: z.string(),
  totalItems: z.number().int(),
  status: z.enum(['processing', 'completed', 'failed']),
  progress: z.object({ completed: z.number().int(), failed: z.number().int(), pending: z.number().int() }),
  monitorUrl: z.string(),
  ...Ownership,
});
export const BatchParams = z.object({ batchId: z.string().uuid() });

export const EngineHealth = z.object({
  status: z.string(),
  version: z.string(),
  flow_runtime: z.object({ status: z.string(), version: z.string() }),
  executions: z.object({ active: z.number().int(), queued: z.number().int(), totalToday: z.number().int() }),
});

/** Stream messages of `/executions/{id}/stream` and `/batches/{id}/stream`. */
export const StreamEventType = z.enum([
  'node-started',
  'node-completed',
  'node-failed',
  'node-retrying',
  'node-skipped',
  'workflow-completed',
  'workflow-failed',
  'batch-progress',
  'batch-completed',
]);

export const CollectionParams = z.object({ collection: z.string().regex(/^[A-Za-z0-9_.-]{1,128}$/) });
export const UpsertDocumentsRequest = z.object({
  /** Share a new collection with a team (ignored for an existing collection: it keeps its owner and team). */
  team: TeamId.optional(),
  /** Embeds documents that carry text but no vector through local-models. */
  model: z.string().max(200).optional(),
  documents: z
    .array(
      z.object({
        id: z.string().min(1).max(256),
        text: z.string().max(20_000).default(''),
        vector: z.array(z.number()).min(1).max(4096).optional(),
        metadata: z.record(z.string(), z.unknown()).default({}),
      }),
    )
    .min(1)
    .max(500),
});
export const UpsertDocumentsResponse = z.object({ collection: z.string(), upserted: z.number().int(), total: z.number().int(), ...Ownership });
