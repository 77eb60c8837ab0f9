import { z } from 'zod';
import { PageQuery } from '../paging';

/**
 * Request and response bodies of the workers service (spec 3, "Supporting service: workflow
 * orchestration workers"): durable DAGs of `http`, `agent` and `database` steps.
 */

// eslint-disable-next-line no-control-regex
const PLAIN_TEXT = /^[^\u0000-\u001f\u007f]*$/;
const plain = (max: number) => z.string().min(1).max(max).regex(PLAIN_TEXT, 'no control characters');

/** A step id: letters, digits, `_` and `-`, so that `{{<id>.<path>}}` templates can name it. */
export const StepId = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z_][A-Za-z0-9_-]*$/, 'letters, digits, _ and -, starting with a letter or _')
  .refine((id) => id !== 'input', '`input` is reserved for the run input');
export const WorkflowName = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'letters, digits, _, . and -');
export const StepType = z.enum(['http', 'agent', 'database']);
export type StepType = z.infer<typeof StepType>;

export const RetryPolicy = z
  .object({
    maxAttempts: z.number().int().min(1).max(20).default(1),
    backoff: z.literal('exponential').default('exponential'),
    /** Milliseconds before the second attempt; doubled for each further one, with jitter added. */
    initialDelay: z.number().int().min(0).max(3_600_000).default(1000),
  })
  .strict();
export type RetryPolicy = z.infer<typeof RetryPolicy>;

const HttpUrl = z
  .string()
  .max(2048)
  .regex(/^https?:\/\/\S+$/, 'an http(s) URL (templates allowed)');

export const StepDefinition = z
  .object({
    id: StepId,
    type: StepType,
    /** http: the request URL; agent: the agent's task endpoint when the mesh is not configured (MESH_URL). */
    url: HttpUrl.optional(),
    /** agent: the agent (its mesh id or a capability) whose endpoint the mesh's routing resolves when MESH_URL is set. */
    agent: plain(253).optional(),
    depends_on: z.array(StepId).max(100).default([]),
    /** Free JSON made available as the `input` of an agent task; strings may hold templates. */
    input: z.unknown().optional(),
    method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD']).optional(),
    headers: z.record(z.string().max(256), z.string().max(8192)).optional(),
    body: z.unknown().optional(),
    /** Seconds an attempt may run (overrides the task type's timeout). */
    timeout: z.number().int().min(1).max(86_400).optional(),
    retry: RetryPolicy.optional(),
    /** database: the datasource named in WORKERS_DATASOURCES. */
    datasource: plain(64).optional(),
    /** database: one parameterised SQL statement ($1, $2, ...). */
    statement: z.string().min(1).max(16_384).optional(),
    /** database: the statement's parameters; strings may hold templates. */
    params: z.array(z.unknown()).max(100).optional(),
  })
  .strict()
  .superRefine((step, ctx) => {
    if (step.type === 'http' && !step.url) ctx.addIssue({ code: 'custom', path: ['url'], message: 'an http step needs a url' });
    if (step.type === 'agent' && !step.url && !step.agent)
      ctx.addIssue({ code: 'custom', path: ['agent'], message: 'an agent step needs an agent (routed through the mesh) or a url' });
    if (step.type === 'database') {
      if (!step.datasource) ctx.addIssue({ code: 'custom', path: ['datasource'], message: 'a database step needs a datasource' });
      if (!step.statement) ctx.addIssue({ code: 'custom', path: ['statement'], message: 'a database step needs a statement' });
    }
  });
export type StepDefinition = z.infer<typeof StepDefinition>;

/** A team (auth's id) to share a new definition name or run with: members read it, editors change and run it. */
export const TeamId = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[\x21-\x7e]+$/, 'a team id');
/**
 * Who a definition or run belongs to: the `sub` that created it and the team it is shared with.
 * `owner` is null on what was created before owners were recorded (reached only with `workers:admin`).
 */
const ownership = { owner: z.string().nullable(), team: z.string().nullable() };

/** A definition: a name and its steps (checked further by the service: ids, dependencies, cycles). */
export const WorkflowDefinition = z.object({
  name: WorkflowName,
  description: z.string().max(2000).optional(),
  /** A file's definition (`POST /workflows/reload`): the team a new name is shared with. */
  team: TeamId.optional(),
  steps: z.array(StepDefinition).min(1).max(1000),
});
export type WorkflowDefinition = z.infer<typeof WorkflowDefinition>;

/** `POST /workflows`: registers the definition (a new version when the steps changed) and starts a run. */
export const StartWorkflowBody = z.object({
  name: WorkflowName,
  description: z.string().max(2000).optional(),
  /** Omitted: run the pinned or latest stored version of `name`. */
  steps: z.array(StepDefinition).min(1).max(1000).optional(),
  /** The run's input, available to templates as `{{input.<path>}}`. */
  input: z.record(z.string(), z.unknown()).optional(),
  /**
   * Shares the run (and a new definition name) with this team; only an editor of the team may. A
   * run without one is shared with its definition's team.
   */
  team: TeamId.optional(),
});
export type StartWorkflowBody = z.infer<typeof StartWorkflowBody>;

export const RunState = z.enum(['pending', 'running', 'completed', 'failed', 'cancelled']);
export const StepState = z.enum(['waiting', 'queued', 'running', 'completed', 'failed', 'cancelled', 'blocked']);

export const RunSummary = z.object({
  workflow_id: z.string().uuid(),
  name: z.string(),
  version: z.number().int(),
  state: RunState,
  error: z.string().nullable(),
  blocked_steps: z.array(z.string()),
  trace_id: z.string(),
  created_at: z.string(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  ...ownership,
});
export type RunSummary = z.infer<typeof RunSummary>;

export const StartedRun = RunSummary.extend({ pinned: z.boolean(), steps: z.number().int() });

export const RunPage = z.object({ items: z.array(RunSummary), total: z.number().int(), limit: z.number().int(), offset: z.number().int() });

export const WorkflowIdParams = z.object({ workflow_id: z.string().uuid() });
export const PinParams = z.object({ workflow_id: z.string().min(1).max(128) });
export const PinQuery = z.object({ version: z.coerce.number().int().min(1).max(1_000_000) });
export const Pin = z.object({ name: z.string(), version: z.number().int(), pinned_at: z.string() });

export const DefinitionVersion = z.object({
  name: z.string(),
  version: z.number().int(),
  hash: z.string(),
  steps: z.number().int(),
  source: z.string(),
  pinned: z.boolean(),
  created_at: z.string(),
  ...ownership,
});
export const VersionsQuery = PageQuery.extend({ name: WorkflowName.optional() });
export const VersionPage = z.object({ items: z.array(DefinitionVersion), total: z.number().int(), limit: z.number().int(), offset: z.number().int() });

export const ReloadResult = z.object({
  directory: z.string(),
  loaded: z.array(z.object({ file: z.string(), name: z.string(), version: z.number().int(), created: z.boolean() })),
});

export const DagNode = z.object({
  id: z.string(),
  task_id: z.string().uuid(),
  type: StepType,
  state: StepState,
  attempt: z.number().int(),
  depends_on: z.array(z.string()),
});
export const Dag = z.object({
  workflow_id: z.string().uuid(),
  state: RunState,
  /** Why the run failed: the failed steps and the steps they blocked. */
  error: z.string().nullable(),
  blocked_steps: z.array(z.string()),
  nodes: z.array(DagNode),
  edges: z.array(z.object({ source: z.string(), target: z.string() })),
});

export const TraceEntry = z.object({
  step: z.string(),
  task_id: z.string().uuid(),
  attempt: z.number().int(),
  state: z.string(),
  worker: z.string(),
  idempotency_key: z.string(),
  started_at: z.string(),
  finished_at: z.string().nullable(),
  duration_ms: z.number().int().nullable(),
  error: z.string().nullable(),
});
export const Trace = z.object({
  workflow_id: z.string().uuid(),
  trace_id: z.string(),
  state: RunState,
  created_at: z.string(),
  finished_at: z.string().nullable(),
  timeline: z.array(TraceEntry),
});

export const OrphanedRun = z.object({
  workflow_id: z.string().uuid(),
  name: z.string(),
  state: RunState,
  orphaned_steps: z.array(
    z.object({ step: z.string(), task_id: z.string().uuid(), attempt: z.number().int(), worker: z.string().nullable(), lease_expired_at: z.string() }),
  ),
});
export const OrphanedPage = z.object({ items: z.array(OrphanedRun), total: z.number().int(), limit: z.number().int(), offset: z.number().int() });
export const RecoverResult = z.object({
  recovered: z.number().int(),
  steps: z.array(z.object({ workflow_id: z.string().uuid(), step: z.string(), attempt: z.number().int() })),
});

export const WorkerStatus = z.object({
  id: z.string(),
  host: z.string(),
  pid: z.number().int(),
  concurrency: z.number().int(),
  active_tasks: z.number().int(),
  task_types: z.array(z.string()),
  started_at: z.string(),
  last_heartbeat: z.string(),
  stopped_at: z.string().nullable(),
});
export const WorkerPage = z.object({ items: z.array(WorkerStatus), total: z.number().int(), limit: z.number().int(), offset: z.number().int() });

export const TaskTypeStats = z.object({
  type: z.string(),
  counts: z.record(z.string(), z.number().int()),
  p50_ms: z.number().nullable(),
  p95_ms: z.number().nullable(),
  /** Attempts finished in the last minute, per second. */
  throughput_per_s: z.number(),
  timeout_s: z.number().int(),
});
export const TaskStats = z.object({ types: z.array(TaskTypeStats) });

export const SlowQuery = PageQuery.extend({
  threshold: z.coerce.number().int().min(0).max(86_400_000).default(1000),
  /** Only the tasks of this run. */
  workflow_id: z.string().uuid().optional(),
});
export const SlowTask = z.object({
  task_id: z.string().uuid(),
  workflow_id: z.string().uuid(),
  step: z.string(),
  type: StepType,
  state: StepState,
  attempt: z.number().int(),
  duration_ms: z.number().int(),
});
export const SlowPage = z.object({
  items: z.array(SlowTask),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
  threshold_ms: z.number().int(),
});

export const TaskParams = z.object({ task_id: z.string().uuid() });
export const TaskRetryQuery = z.object({ timeout: z.coerce.number().int().min(1).max(86_400).optional() });
export const TaskRetried = z.object({
  task_id: z.string().uuid(),
  workflow_id: z.string().uuid(),
  step: z.string(),
  attempt: z.number().int(),
  state: StepState,
  timeout_s: z.number().int().nullable(),
});

export const TaskTypeParams = z.object({ type: StepType });
export const TaskTypeBody = z.object({ timeout: z.number().int().min(1).max(86_400) }).strict();
export const TaskTypeSetting = z.object({ type: StepType, timeout: z.number().int(), updated_at: z.string() });

export const PauseState = z.object({ paused: z.boolean(), changed_at: z.string() });
