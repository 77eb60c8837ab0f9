import { z } from 'zod';

/**
 * Request and response bodies of the tracing and evaluation service (spec 3, "Supporting service:
 * tracing and evaluation"). OTLP bodies themselves are defined by opentelemetry-proto, not here.
 */
// eslint-disable-next-line no-control-regex -- refusing control characters is the point
const PLAIN_TEXT = /^[^\u0000-\u001f\u007f]*$/;
const plain = (max: number) => z.string().min(1).max(max).regex(PLAIN_TEXT, 'no control characters');

export const TraceId = z.string().regex(/^[0-9a-f]{32}$/, '32 lowercase hex digits');
export const SpanId = z.string().regex(/^[0-9a-f]{16}$/, '16 lowercase hex digits');
export const ProjectName = plain(256);

/** The OTLP answer in its JSON mapping (`ExportTraceServiceResponse`). */
export const ExportTraceServiceResponse = z
  .object({ partialSuccess: z.object({ rejectedSpans: z.string().optional(), errorMessage: z.string().optional() }).optional() })
  .meta({ id: 'ExportTraceServiceResponse' });

/** A model call a span describes (GenAI or OpenInference attributes), costed at ingestion. */
export const ModelCall = z
  .object({
    model: z.string(),
    system: z.string().nullable(),
    input_tokens: z.number().nullable(),
    output_tokens: z.number().nullable(),
    total_tokens: z.number().nullable(),
    cost: z.number().nullable().describe("from the platform's model price table (per 1,000 tokens); null: a model the table does not name"),
    prompt: z.unknown().optional().describe('the prompt, when the span carries it (gen_ai.prompt, gen_ai.input.messages, prompt events, input.value)'),
    completion: z.unknown().optional().describe('the completion, when the span carries it'),
  })
  .meta({ id: 'ModelCall' });

export const SpanKind = z.enum(['UNSPECIFIED', 'INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER']);
export const SpanStatus = z.enum(['UNSET', 'OK', 'ERROR']);

export const Span = z
  .object({
    project: z.string(),
    trace_id: z.string(),
    span_id: z.string(),
    parent_span_id: z.string().nullable(),
    name: z.string(),
    kind: SpanKind,
    status: z.object({ code: SpanStatus, message: z.string().nullable() }),
    start_time: z.string(),
    end_time: z.string(),
    start_time_unix_nano: z.string(),
    end_time_unix_nano: z.string(),
    duration_ms: z.number(),
    trace_state: z.string().nullable(),
    flags: z.number(),
    attributes: z.record(z.string(), z.unknown()),
    events: z.array(z.unknown()),
    links: z.array(z.unknown()),
    resource: z.object({ attributes: z.record(z.string(), z.unknown()), dropped_attributes_count: z.number().optional() }),
    scope: z.object({ name: z.string().optional(), version: z.string().optional(), attributes: z.record(z.string(), z.unknown()).optional() }),
    session_id: z.string().nullable().describe('`session.id` of the span, else of its resource'),
    user_id: z.string().nullable().describe('`user.id` of the span, else of its resource'),
    model_call: ModelCall.nullable(),
  })
  .meta({ id: 'Span' });
export type Span = z.infer<typeof Span>;

export type SpanNode = Span & { children: SpanNode[] };
export const SpanNode: z.ZodType<SpanNode> = Span.extend({ children: z.array(z.lazy(() => SpanNode)) }).meta({ id: 'SpanNode' });

export const TraceParams = z.object({ trace_id: TraceId });
export const Trace = z
  .object({
    trace_id: z.string(),
    projects: z.array(z.string()),
    span_count: z.number(),
    start_time: z.string(),
    end_time: z.string(),
    duration_ms: z.number(),
    root_span: Span.nullable(),
    spans: z.array(SpanNode),
  })
  .meta({ id: 'Trace' });

const isoDate = z.iso.datetime({ offset: true }).or(z.iso.date());

export const ProjectParams = z.object({ project: ProjectName });
export const SpansQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(500).default(50),
    cursor: z.string().max(200).optional(),
    from: isoDate.optional(),
    to: isoDate.optional(),
    name: plain(1024).optional(),
    status: z
      .enum(['UNSET', 'OK', 'ERROR', 'unset', 'ok', 'error'])
      .transform((value) => value.toUpperCase() as z.infer<typeof SpanStatus>)
      .optional(),
    kind: z
      .enum(['UNSPECIFIED', 'INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER', 'unspecified', 'internal', 'server', 'client', 'producer', 'consumer'])
      .transform((value) => value.toUpperCase() as z.infer<typeof SpanKind>)
      .optional(),
    trace_id: TraceId.optional(),
  })
  .catchall(z.unknown());
export const SpanPage = z.object({ spans: z.array(Span), next_cursor: z.string().nullable(), total: z.number() }).meta({ id: 'SpanPage' });

export const CountQuery = z.object({ project: ProjectName.optional(), from: isoDate.optional(), to: isoDate.optional() });
export const SpanCounts = z.object({
  total: z.number(),
  from: z.string().nullable(),
  to: z.string().nullable(),
  projects: z.array(z.object({ project: z.string(), spans: z.number(), traces: z.number() })),
});

/** Who made a call and in which conversation: `user.id` / `session.id` attributes. */
const PlainId = plain(256);

export const UsageGroup = z.enum(['model', 'project', 'user', 'session']);
export const UsageQuery = z
  .object({
    group_by: UsageGroup.default('model'),
    from: isoDate.optional(),
    to: isoDate.optional(),
    project: ProjectName.optional(),
    model: plain(256).optional(),
    user_id: PlainId.optional(),
    session_id: PlainId.optional(),
    limit: z.coerce.number().int().min(1).max(500).default(50),
    offset: z.coerce.number().int().min(0).default(0),
  })
  .strict();
const UsageFigures = {
  calls: z.number().describe('spans describing a model call'),
  input_tokens: z.number(),
  output_tokens: z.number(),
  total_tokens: z.number(),
  cost: z.number().describe('sum over the calls of a priced model'),
  unpriced_calls: z.number().describe('calls of a model the price table does not name (no cost)'),
  errors: z.number(),
};
export const UsageRow = z.object({
  key: z.string().nullable().describe('the model, project, user id or session id; null: calls without one'),
  ...UsageFigures,
  avg_ms: z.number().nullable(),
  p50_ms: z.number().nullable(),
  p95_ms: z.number().nullable(),
  first_seen: z.string().nullable(),
  last_seen: z.string().nullable(),
});
export const UsageReport = z
  .object({
    group_by: UsageGroup,
    from: z.string().nullable(),
    to: z.string().nullable(),
    totals: z.object(UsageFigures),
    groups: z.array(UsageRow),
    total: z.number().describe('groups in all'),
    limit: z.number(),
    offset: z.number(),
  })
  .meta({ id: 'UsageReport' });

export const StatsQuery = z.object({ from: isoDate.optional(), to: isoDate.optional() });

export const SessionsQuery = z
  .object({
    project: ProjectName.optional(),
    user_id: PlainId.optional(),
    from: isoDate.optional(),
    to: isoDate.optional(),
    limit: z.coerce.number().int().min(1).max(500).default(50),
    offset: z.coerce.number().int().min(0).default(0),
  })
  .strict();
const SessionFigures = {
  trace_count: z.number(),
  span_count: z.number(),
  model_calls: z.number(),
  input_tokens: z.number(),
  output_tokens: z.number(),
  cost: z.number(),
  errors: z.number(),
};
export const SessionSummary = z
  .object({
    session_id: z.string(),
    users: z.array(z.string()),
    projects: z.array(z.string()),
    first_seen: z.string(),
    last_seen: z.string(),
    ...SessionFigures,
  })
  .meta({ id: 'SessionSummary' });
export const SessionPage = z.object({ sessions: z.array(SessionSummary), total: z.number(), limit: z.number(), offset: z.number() });
export const SessionParams = z.object({ session_id: PlainId });
export const SessionTrace = z.object({
  trace_id: z.string(),
  name: z.string().describe("the root span's name"),
  start_time: z.string(),
  end_time: z.string(),
  duration_ms: z.number(),
  span_count: z.number(),
  model_calls: z.number(),
  models: z.array(z.string()),
  input_tokens: z.number(),
  output_tokens: z.number(),
  cost: z.number(),
  errors: z.number(),
});
export const Session = z
  .object({
    session_id: z.string(),
    users: z.array(z.string()),
    projects: z.array(z.string()),
    first_seen: z.string(),
    last_seen: z.string(),
    ...SessionFigures,
    traces: z.array(SessionTrace).describe('its traces in the order they started (the first 1,000)'),
  })
  .meta({ id: 'Session' });

export const Stats = z.object({
  spans: z.number(),
  traces: z.number(),
  projects: z.number(),
  bytes_on_disk: z.number(),
  partitions: z.number(),
  ingest: z.object({
    spans_per_second: z.number(),
    accepted_spans: z.number(),
    rejected_spans: z.number(),
    unauthenticated_requests: z.number(),
    buffer_depth: z.number(),
    buffer_capacity: z.number(),
  }),
  per_project: z.array(
    z.object({
      project: z.string(),
      spans: z.number(),
      traces: z.number(),
      error_rate: z.number(),
      p50_ms: z.number().nullable(),
      p95_ms: z.number().nullable(),
    }),
  ),
  /** Model calls between `from` and `to` (all stored ones without them): totals and per model. */
  model_calls: z.object({
    from: z.string().nullable(),
    to: z.string().nullable(),
    calls: z.number(),
    input_tokens: z.number(),
    output_tokens: z.number(),
    total_tokens: z.number(),
    cost: z.number(),
    unpriced_calls: z.number(),
    errors: z.number(),
    per_model: z.array(UsageRow),
  }),
});

export const RetentionConfig = z
  .object({
    retention_days: z.number().int().min(1).max(3650),
    max_spans_per_project: z.number().int().min(1).nullable(),
    project_span_caps: z.record(ProjectName, z.number().int().min(1)),
    updated_at: z.string().optional(),
  })
  .meta({ id: 'RetentionConfig' });
export const RetentionConfigUpdate = z
  .object({
    retention_days: z.number().int().min(1).max(3650).optional(),
    max_spans_per_project: z.number().int().min(1).nullable().optional(),
    project_span_caps: z
      .record(ProjectName, z.number().int().min(1))
      .refine((caps) => Object.keys(caps).length <= 1000, 'at most 1000 projects')
      .optional(),
  })
  .strict();

export const GcResult = z.object({
  partitions_dropped: z.array(z.string()),
  spans_deleted: z.number(),
  spans_deleted_by_age: z.number(),
  spans_deleted_by_cap: z.number(),
  embeddings_deleted: z.number(),
  heap_used_bytes: z.number(),
});
export const FlushResult = z.object({ flushed_spans: z.number(), buffer_depth: z.number() });

export const DeleteTracesQuery = z
  .object({
    before: isoDate.optional(),
    trace_id: z.union([TraceId, z.array(TraceId).min(1).max(1000)]).optional(),
  })
  .refine((q) => (q.before === undefined) !== (q.trace_id === undefined), 'give exactly one of before or trace_id');
export const DeleteResult = z.object({ traces_deleted: z.number(), spans_deleted: z.number() });

/** A team id in a create request: the new resource is shared with that team (the caller must be one of its editors). */
export const TeamId = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[\x21-\x7e]+$/, 'a team id');

// Embeddings
export const EmbeddingFilter = z.object({ project: ProjectName.optional(), model: plain(256).optional() });
export const EmbeddingCount = z.object({ count: z.number(), projects: z.array(z.object({ project: z.string(), count: z.number() })) });
export const EmbeddingDimensions = z.object({ dimensions: z.array(z.object({ dimensions: z.number(), model: z.string().nullable(), count: z.number() })) });
export const ReprojectRequest = z
  .object({
    method: z.enum(['umap', 'pca']).default('umap'),
    dimensions: z.union([z.literal(2), z.literal(3)]).default(2),
    project: ProjectName.optional(),
    model: plain(256).optional(),
    vector_size: z.number().int().min(2).max(65536).optional(),
    limit: z.number().int().min(3).max(20000).default(5000),
    /** Shares it with a team the caller is an editor of. */
    team: TeamId.optional(),
  })
  .strict();
export const Projection = z
  .object({
    id: z.string(),
    method: z.string(),
    dimensions: z.number(),
    project: z.string().nullable(),
    model: z.string().nullable(),
    vector_size: z.number().nullable(),
    status: z.enum(['queued', 'running', 'completed', 'failed']),
    count: z.number(),
    error: z.string().nullable(),
    created_at: z.string(),
    completed_at: z.string().nullable(),
    owner: z.string().nullable().describe('the `sub` of the token that created it; null: created before owners were recorded (traces:admin only)'),
    team: z.string().nullable().describe('the team it is shared with'),
    status_url: z.string(),
    points: z.array(z.object({ embedding_id: z.string(), trace_id: z.string(), span_id: z.string(), coordinates: z.array(z.number()) })).optional(),
  })
  .meta({ id: 'Projection' });
export const ProjectionParams = z.object({ projection_id: z.uuid() });

// Datasets
export const Example = z.object({
  input: z.unknown().refine((value) => value !== undefined, 'input is required'),
  expected_output: z.unknown().optional(),
  output: z.unknown().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
export type Example = z.infer<typeof Example>;
export const CreateDataset = z.object({
  name: plain(200),
  description: z.string().max(2000).optional(),
  data: z.array(Example).min(1).max(10_000),
  /** Shares this version with a team the caller is an editor of. */
  team: TeamId.optional(),
});
export const Dataset = z
  .object({
    id: z.string(),
    name: z.string(),
    version: z.number(),
    description: z.string().nullable(),
    example_count: z.number(),
    created_at: z.string(),
    owner: z.string().nullable().describe('the `sub` of the token that created it; null: created before owners were recorded (traces:admin only)'),
    team: z.string().nullable().describe('the team it is shared with'),
    data: z.array(Example).optional(),
  })
  .meta({ id: 'Dataset' });
export const DatasetQuery = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(50),
  offset: z.coerce.number().int().min(0).default(0),
  name: plain(200).optional(),
});
export const DatasetPage = z.object({ datasets: z.array(Dataset), total: z.number(), limit: z.number(), offset: z.number() });

// Evaluations
export const MetricName = z.enum(['exact_match', 'contains', 'regex', 'levenshtein', 'json_valid', 'latency', 'tokens']);
export type MetricName = z.infer<typeof MetricName>;
/** The variables a judge's prompt template may use, from the example and the output being graded. */
export const JUDGE_VARIABLES = ['input', 'output', 'expected', 'metadata'] as const;
export const JudgeRubric = z
  .object({
    min: z.number().finite().default(0),
    max: z.number().finite().default(1),
    pass_threshold: z.number().finite().describe('a score at or above it passes'),
    criteria: z.string().max(8000).optional().describe('what each score means, given to the judge with the range'),
  })
  .strict()
  .refine((rubric) => rubric.min < rubric.max, { message: 'min must be below max', path: ['max'] })
  .refine((rubric) => rubric.pass_threshold >= rubric.min && rubric.pass_threshold <= rubric.max, {
    message: 'pass_threshold must lie between min and max',
    path: ['pass_threshold'],
  });
/**
 * LLM-as-a-judge: a model, through the OpenAI-compatible chat completions URL of TRACING_JUDGE_URL,
 * grades each example from `prompt` (`{{input}}`, `{{output}}`, `{{expected}}`, `{{metadata}}`)
 * and the rubric, answering `{"score", "reasoning"}`; the score is kept under `name`.
 */
export const LlmJudgeMetric = z
  .object({
    kind: z.literal('llm_judge'),
    name: z
      .string()
      .regex(/^[a-z][a-z0-9_]{0,62}$/, 'lowercase letters, digits and _')
      .refine((name) => !(MetricName.options as readonly string[]).includes(name), 'the name of a built-in metric')
      .default('llm_judge'),
    model: z.string().min(1).max(200),
    prompt: z
      .string()
      .min(1)
      .max(20_000)
      .refine(
        (template) => [...template.matchAll(/\{\{\s*([^}]*?)\s*\}\}/g)].every((match) => (JUDGE_VARIABLES as readonly string[]).includes(match[1])),
        `only the variables ${JUDGE_VARIABLES.map((name) => `{{${name}}}`).join(', ')}`,
      ),
    rubric: JudgeRubric,
    temperature: z.number().min(0).max(2).default(0),
  })
  .strict()
  .meta({ id: 'LlmJudgeMetric' });
export type LlmJudgeMetric = z.infer<typeof LlmJudgeMetric>;
export const MetricSpec = z.union([
  MetricName,
  z.object({ name: MetricName, pattern: z.string().max(1000).optional(), case_sensitive: z.boolean().optional() }).strict(),
  LlmJudgeMetric,
]);
export type MetricSpec = z.infer<typeof MetricSpec>;
export const EvaluationTarget = z
  .object({
    url: z.url({ protocol: /^https?$/ }),
    method: z.enum(['POST', 'PUT']).default('POST'),
    headers: z.record(z.string().max(200), z.string().max(4000)).optional(),
    timeout_ms: z.number().int().min(100).max(300_000).default(30_000),
    output_path: z.string().max(200).optional(),
  })
  .strict();
export type EvaluationTarget = z.infer<typeof EvaluationTarget>;
export const CreateEvaluation = z
  .object({
    name: plain(200),
    dataset_id: z.uuid(),
    metrics: z.array(MetricSpec).min(1).max(20),
    target: EvaluationTarget.optional(),
    /** Shares the evaluation with a team the caller is an editor of. */
    team: TeamId.optional(),
  })
  .strict();
export const EvaluationCounts = z.object({ total: z.number(), pending: z.number(), running: z.number(), succeeded: z.number(), failed: z.number() });
export const Evaluation = z
  .object({
    id: z.string(),
    name: z.string(),
    dataset_id: z.string(),
    metrics: z.array(MetricSpec),
    target: z.object({ url: z.string(), method: z.string() }).nullable(),
    status: z.enum(['running', 'paused', 'completed', 'completed_with_errors']),
    counts: EvaluationCounts,
    summary: z.record(z.string(), z.number().nullable()),
    created_at: z.string(),
    completed_at: z.string().nullable(),
    owner: z.string().nullable().describe('the `sub` of the token that created it; null: created before owners were recorded (traces:admin only)'),
    team: z.string().nullable().describe('the team it is shared with'),
  })
  .meta({ id: 'Evaluation' });
export const EvaluationParams = z.object({ eval_id: z.uuid() });
export const EvaluationQuery = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});
export const EvaluationPage = z.object({ evaluations: z.array(Evaluation), total: z.number(), limit: z.number(), offset: z.number() });
export const EvaluationResult = z.object({
  index: z.number(),
  status: z.enum(['pending', 'running', 'succeeded', 'failed']),
  attempts: z.number(),
  input: z.unknown(),
  expected_output: z.unknown().optional(),
  output: z.unknown().optional(),
  scores: z.record(z.string(), z.number().nullable()).nullable(),
  judgments: z
    .record(
      z.string(),
      z.object({
        score: z.number(),
        passed: z.boolean(),
        reasoning: z.string(),
        model: z.string(),
        attempts: z.number().describe('judge calls it took (malformed answers retried)'),
      }),
    )
    .nullable()
    .describe('per LLM-judge metric: the score, whether it passed the rubric, and the model reasoning'),
  trace_id: z.string().nullable(),
  latency_ms: z.number().nullable(),
  error: z.string().nullable(),
});
export const EvaluationResultPage = z.object({ results: z.array(EvaluationResult), total: z.number(), limit: z.number(), offset: z.number() });
export const RetryResult = z.object({ evaluation_id: z.string(), retried: z.number() });
export const QueueStatus = z.object({
  paused: z.boolean(),
  jobs: z.object({ waiting: z.number(), active: z.number(), delayed: z.number(), failed: z.number(), completed: z.number() }),
  evaluations: z.object({ running: z.number(), completed: z.number() }),
});
export const ActiveEvaluations = z.object({ paused: z.boolean(), evaluations: z.array(Evaluation) });
