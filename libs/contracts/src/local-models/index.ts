import { z } from 'zod';

/**
 * Bodies of the local model service (spec 2, "Local model inference service"). The `/api/*` routes
 * speak Ollama's API, so their requests keep unknown fields (an Ollama server behind the service may
 * understand them) and their answers are Ollama's shapes.
 */

const ModelName = z.string().min(1).max(200).describe('A model name, `name:tag` (`:latest` when no tag is given)');

/** Sampling options; unknown Ollama options are passed on to an Ollama backend untouched. */
export const ModelOptions = z
  .looseObject({
    temperature: z.number().min(0).max(5).optional(),
    seed: z.number().int().optional(),
    num_predict: z.number().int().min(-2).optional().describe('Tokens to generate at most; -1 or -2 means the configured maximum'),
    top_k: z.number().int().min(0).optional(),
    top_p: z.number().min(0).max(1).optional(),
    min_p: z.number().min(0).max(1).optional(),
    repeat_penalty: z.number().min(0).max(10).optional(),
    stop: z.array(z.string().min(1).max(200)).max(16).optional(),
    num_ctx: z.number().int().positive().optional(),
  })
  .meta({ id: 'ModelOptions' });
export type ModelOptions = z.infer<typeof ModelOptions>;

export const GenerateRequest = z
  .looseObject({
    model: ModelName,
    prompt: z.string().max(200_000).optional().describe('Empty or missing: the model is loaded and nothing is generated'),
    system: z.string().max(50_000).optional(),
    suffix: z.string().max(50_000).optional(),
    raw: z.boolean().optional(),
    stream: z.boolean().optional().describe('NDJSON chunks (default) or one object'),
    options: ModelOptions.optional(),
    images: z.array(z.string()).max(16).optional(),
    format: z.union([z.literal('json'), z.record(z.string(), z.unknown())]).optional(),
    keep_alive: z.union([z.string(), z.number()]).optional(),
  })
  .meta({ id: 'GenerateRequest' });
export type GenerateRequest = z.infer<typeof GenerateRequest>;

const Timings = {
  total_duration: z.number().int().optional().describe('Nanoseconds, as Ollama counts'),
  load_duration: z.number().int().optional(),
  prompt_eval_count: z.number().int().optional(),
  prompt_eval_duration: z.number().int().optional(),
  eval_count: z.number().int().optional(),
  eval_duration: z.number().int().optional(),
};

/** One NDJSON line of a streamed answer, or the whole answer with `stream: false`. */
export const GenerateResponse = z
  .looseObject({
    model: z.string(),
    created_at: z.string(),
    response: z.string(),
    done: z.boolean(),
    done_reason: z.string().optional(),
    ...Timings,
  })
  .meta({ id: 'GenerateResponse' });
export type GenerateResponse = z.infer<typeof GenerateResponse>;

export const ChatMessage = z.looseObject({
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  content: z.string().max(200_000),
  images: z.array(z.string()).max(16).optional(),
});
export type ChatMessage = z.infer<typeof ChatMessage>;

export const ChatRequest = z
  .looseObject({
    model: ModelName,
    messages: z.array(ChatMessage).max(500).default([]),
    stream: z.boolean().optional(),
    options: ModelOptions.optional(),
    tools: z.array(z.unknown()).max(64).optional(),
    format: z.union([z.literal('json'), z.record(z.string(), z.unknown())]).optional(),
    keep_alive: z.union([z.string(), z.number()]).optional(),
  })
  .meta({ id: 'ChatRequest' });
export type ChatRequest = z.infer<typeof ChatRequest>;

export const ChatResponse = z
  .looseObject({
    model: z.string(),
    created_at: z.string(),
    message: z.looseObject({ role: z.string(), content: z.string() }),
    done: z.boolean(),
    done_reason: z.string().optional(),
    ...Timings,
  })
  .meta({ id: 'ChatResponse' });
export type ChatResponse = z.infer<typeof ChatResponse>;

export const EmbedRequest = z
  .looseObject({
    model: ModelName,
    input: z.union([z.string().max(200_000), z.array(z.string().max(200_000)).min(1).max(256)]),
    truncate: z.boolean().optional(),
    options: ModelOptions.optional(),
    keep_alive: z.union([z.string(), z.number()]).optional(),
  })
  .meta({ id: 'EmbedRequest' });
export type EmbedRequest = z.infer<typeof EmbedRequest>;

export const EmbedResponse = z
  .looseObject({
    model: z.string(),
    embeddings: z.array(z.array(z.number())),
    total_duration: z.number().int().optional(),
    load_duration: z.number().int().optional(),
    prompt_eval_count: z.number().int().optional(),
  })
  .meta({ id: 'EmbedResponse' });
export type EmbedResponse = z.infer<typeof EmbedResponse>;

export const ModelBackend = z.enum(['ollama', 'embedded']);
export type ModelBackend = z.infer<typeof ModelBackend>;

export const ModelDetails = z.looseObject({
  parent_model: z.string(),
  format: z.string(),
  family: z.string(),
  families: z.array(z.string()).nullable(),
  parameter_size: z.string(),
  quantization_level: z.string(),
});

/** A model as `/api/tags` lists it (Ollama's fields, plus the backend that serves it). */
export const ModelSummary = z
  .looseObject({
    name: z.string(),
    model: z.string(),
    modified_at: z.string(),
    size: z.number().int(),
    digest: z.string(),
    details: ModelDetails,
    backend: ModelBackend,
  })
  .meta({ id: 'ModelSummary' });
export type ModelSummary = z.infer<typeof ModelSummary>;

export const TagsResponse = z.object({ models: z.array(ModelSummary) }).meta({ id: 'TagsResponse' });
export type TagsResponse = z.infer<typeof TagsResponse>;

export const ToolName = z.enum(['generate', 'chat', 'embed']);
export type ToolName = z.infer<typeof ToolName>;

export const ToolDescription = z.object({
  name: ToolName,
  description: z.string(),
  inputSchema: z.record(z.string(), z.unknown()),
});

export const ToolsResponse = z
  .object({
    tools: z.array(ToolDescription),
    models: z.array(
      z.object({
        name: z.string(),
        backend: ModelBackend,
        pricePer1kTokens: z.object({ input: z.number(), output: z.number() }),
      }),
    ),
  })
  .meta({ id: 'ToolsResponse' });
export type ToolsResponse = z.infer<typeof ToolsResponse>;

export const InvokeRequest = z
  .object({
    tool: ToolName,
    input: z.object({
      prompt: z.string().min(1).max(200_000),
      model: ModelName,
      system: z.string().max(50_000).optional(),
      options: ModelOptions.optional(),
    }),
  })
  .meta({ id: 'InvokeRequest' });
export type InvokeRequest = z.infer<typeof InvokeRequest>;

/** Spec 2's local inference result; `usage` is added so callers can check the cost. */
export const InvokeResponse = z
  .object({
    result: z.object({
      output: z.union([z.string(), z.array(z.number())]),
      model: z.string(),
    }),
    cost: z.number().describe('From the configured prices per 1,000 tokens; 0 for embedded models'),
    duration: z.number().describe('Milliseconds'),
    usage: z.object({ promptTokens: z.number().int(), completionTokens: z.number().int(), totalTokens: z.number().int() }),
    backend: ModelBackend,
  })
  .meta({ id: 'InvokeResponse' });
export type InvokeResponse = z.infer<typeof InvokeResponse>;

/** `GET /usage`: the calls of a period, newest first, with their totals. */
export const UsageQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(500).default(50),
    offset: z.coerce.number().int().min(0).default(0),
    from: z.iso.datetime({ offset: true }).optional().describe('Inclusive start (ISO 8601)'),
    to: z.iso.datetime({ offset: true }).optional().describe('Exclusive end (ISO 8601)'),
    model: z.string().min(1).max(200).optional(),
    subject: z.string().min(1).max(200).optional().describe('Only with models:admin; others see their own calls'),
  })
  .meta({ id: 'UsageQuery' });
export type UsageQuery = z.infer<typeof UsageQuery>;

export const UsageRecord = z
  .object({
    id: z.string(),
    at: z.string(),
    subject: z.string(),
    endpoint: z.string(),
    model: z.string(),
    backend: ModelBackend,
    promptTokens: z.number().int(),
    completionTokens: z.number().int(),
    cost: z.number(),
    durationMs: z.number(),
    status: z.enum(['ok', 'aborted']),
    requestId: z.string().nullable(),
  })
  .meta({ id: 'UsageRecord' });
export type UsageRecord = z.infer<typeof UsageRecord>;

const UsageTotals = z.object({ calls: z.number().int(), promptTokens: z.number().int(), completionTokens: z.number().int(), cost: z.number() });

export const UsageList = z
  .object({
    items: z.array(UsageRecord),
    total: z.number().int(),
    limit: z.number().int(),
    offset: z.number().int(),
    totals: UsageTotals,
    byModel: z.array(UsageTotals.extend({ model: z.string() })),
  })
  .meta({ id: 'UsageList' });
export type UsageList = z.infer<typeof UsageList>;

export * from './openai';
export * from './openai-errors';
export * from './model-route';
