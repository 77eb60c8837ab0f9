import { z } from 'zod';

/**
 * OpenAI's API as local-models and the gateway serve it (`/v1/chat/completions`, `/v1/completions`,
 * `/v1/embeddings`, `/v1/models`), the subset Ollama, vLLM and LiteLLM serve. Requests keep unknown
 * fields: OpenAI adds fields often, and clients send them.
 */

const ModelId = z.string().min(1).max(200);
const Text = z.string().max(200_000);

/** A message's content: text, or parts of which only text ones are understood here. */
const Content = z.union([Text, z.array(z.looseObject({ type: z.string().max(50) })).max(64)]).nullable();

export const OpenAiToolCall = z.looseObject({
  id: z.string().max(200),
  type: z.literal('function'),
  function: z.object({ name: z.string().min(1).max(200), arguments: z.string().max(200_000) }),
});
export type OpenAiToolCall = z.infer<typeof OpenAiToolCall>;

export const OpenAiMessage = z.looseObject({
  role: z.enum(['system', 'developer', 'user', 'assistant', 'tool']),
  content: Content.optional(),
  name: z.string().max(200).optional(),
  tool_calls: z.array(OpenAiToolCall).max(64).optional(),
  tool_call_id: z.string().max(200).optional(),
});
export type OpenAiMessage = z.infer<typeof OpenAiMessage>;

export const OpenAiTool = z.looseObject({
  type: z.literal('function'),
  function: z.looseObject({
    name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'letters, digits, _ and -, at most 64'),
    description: z.string().max(10_000).optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    strict: z.boolean().nullable().optional(),
  }),
});
export type OpenAiTool = z.infer<typeof OpenAiTool>;

export const OpenAiToolChoice = z.union([
  z.enum(['none', 'auto', 'required']),
  z.looseObject({ type: z.literal('function'), function: z.object({ name: z.string().min(1).max(64) }) }),
]);
export type OpenAiToolChoice = z.infer<typeof OpenAiToolChoice>;

export const OpenAiResponseFormat = z.union([
  z.looseObject({ type: z.literal('text') }),
  z.looseObject({ type: z.literal('json_object') }),
  z.looseObject({
    type: z.literal('json_schema'),
    json_schema: z.looseObject({
      name: z.string().max(64),
      description: z.string().max(10_000).optional(),
      schema: z.record(z.string(), z.unknown()).optional(),
      strict: z.boolean().nullable().optional(),
    }),
  }),
]);
export type OpenAiResponseFormat = z.infer<typeof OpenAiResponseFormat>;

const Stop = z.union([z.string().min(1).max(200), z.array(z.string().min(1).max(200)).max(16)]).nullable();

/** Sampling fields shared by chat and text completions. */
const Sampling = {
  model: ModelId,
  stream: z.boolean().nullable().optional(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullable().optional(),
  max_tokens: z.number().int().min(1).nullable().optional(),
  temperature: z.number().min(0).max(2).nullable().optional(),
  top_p: z.number().min(0).max(1).nullable().optional(),
  seed: z.number().int().nullable().optional(),
  stop: Stop.optional(),
  frequency_penalty: z.number().min(-2).max(2).nullable().optional(),
  presence_penalty: z.number().min(-2).max(2).nullable().optional(),
  n: z.number().int().min(1).max(1, 'only one choice is generated').nullable().optional(),
  user: z.string().max(200).optional(),
};

export const ChatCompletionRequest = z
  .looseObject({
    ...Sampling,
    messages: z.array(OpenAiMessage).min(1).max(500),
    max_completion_tokens: z.number().int().min(1).nullable().optional(),
    tools: z.array(OpenAiTool).max(64).optional(),
    tool_choice: OpenAiToolChoice.optional(),
    parallel_tool_calls: z.boolean().optional(),
    response_format: OpenAiResponseFormat.optional(),
  })
  .meta({ id: 'ChatCompletionRequest' });
export type ChatCompletionRequest = z.infer<typeof ChatCompletionRequest>;

export const OpenAiUsage = z.object({ prompt_tokens: z.number().int(), completion_tokens: z.number().int(), total_tokens: z.number().int() });
export type OpenAiUsage = z.infer<typeof OpenAiUsage>;

export const FinishReason = z.enum(['stop', 'length', 'tool_calls', 'content_filter']);
export type FinishReason = z.infer<typeof FinishReason>;

export const ChatCompletion = z
  .object({
    id: z.string(),
    object: z.literal('chat.completion'),
    created: z.number().int(),
    model: z.string(),
    choices: z.array(
      z.object({
        index: z.number().int(),
        message: z.object({ role: z.literal('assistant'), content: z.string().nullable(), tool_calls: z.array(OpenAiToolCall).optional() }),
        finish_reason: FinishReason,
        logprobs: z.null(),
      }),
    ),
    usage: OpenAiUsage,
    system_fingerprint: z.string().optional(),
  })
  .meta({ id: 'ChatCompletion' });
export type ChatCompletion = z.infer<typeof ChatCompletion>;

/** A streamed tool call's part: `index` names the call, the first part carries its id and name. */
export const ToolCallDelta = z.object({
  index: z.number().int(),
  id: z.string().optional(),
  type: z.literal('function').optional(),
  function: z.object({ name: z.string().optional(), arguments: z.string().optional() }),
});

export const ChatCompletionChunk = z
  .object({
    id: z.string(),
    object: z.literal('chat.completion.chunk'),
    created: z.number().int(),
    model: z.string(),
    choices: z.array(
      z.object({
        index: z.number().int(),
        delta: z.object({ role: z.literal('assistant').optional(), content: z.string().nullable().optional(), tool_calls: z.array(ToolCallDelta).optional() }),
        finish_reason: FinishReason.nullable(),
        logprobs: z.null(),
      }),
    ),
    usage: OpenAiUsage.nullable().optional(),
  })
  .meta({ id: 'ChatCompletionChunk' });
export type ChatCompletionChunk = z.infer<typeof ChatCompletionChunk>;

export const TextCompletionRequest = z
  .looseObject({
    ...Sampling,
    prompt: z.union([Text, z.array(Text).length(1, 'one prompt per request')]),
    suffix: z.string().max(50_000).nullable().optional(),
    echo: z.boolean().nullable().optional(),
  })
  .meta({ id: 'TextCompletionRequest' });
export type TextCompletionRequest = z.infer<typeof TextCompletionRequest>;

export const TextCompletion = z
  .object({
    id: z.string(),
    object: z.literal('text_completion'),
    created: z.number().int(),
    model: z.string(),
    choices: z.array(z.object({ index: z.number().int(), text: z.string(), finish_reason: FinishReason.nullable(), logprobs: z.null() })),
    usage: OpenAiUsage.nullable().optional(),
  })
  .meta({ id: 'TextCompletion' });
export type TextCompletion = z.infer<typeof TextCompletion>;

export const EmbeddingsRequest = z
  .looseObject({
    model: ModelId,
    input: z.union([Text, z.array(Text).min(1).max(256)]),
    encoding_format: z.enum(['float', 'base64']).optional(),
    dimensions: z.number().int().min(1).optional(),
    user: z.string().max(200).optional(),
  })
  .meta({ id: 'EmbeddingsRequest' });
export type EmbeddingsRequest = z.infer<typeof EmbeddingsRequest>;

export const Embeddings = z
  .object({
    object: z.literal('list'),
    data: z.array(z.object({ object: z.literal('embedding'), index: z.number().int(), embedding: z.union([z.array(z.number()), z.string()]) })),
    model: z.string(),
    usage: z.object({ prompt_tokens: z.number().int(), total_tokens: z.number().int() }),
  })
  .meta({ id: 'Embeddings' });
export type Embeddings = z.infer<typeof Embeddings>;

export const OpenAiModel = z.object({ id: z.string(), object: z.literal('model'), created: z.number().int(), owned_by: z.string() });
export type OpenAiModel = z.infer<typeof OpenAiModel>;

export const ModelList = z.object({ object: z.literal('list'), data: z.array(OpenAiModel) }).meta({ id: 'ModelList' });
export type ModelList = z.infer<typeof ModelList>;

/** OpenAI's error body: what its clients read `status`, `code`, `type`, `param` and `message` from. */
export const OpenAiErrorBody = z
  .object({
    error: z.object({ message: z.string(), type: z.string(), code: z.string().nullable(), param: z.string().nullable() }),
  })
  .meta({ id: 'OpenAiError' });
export type OpenAiErrorBody = z.infer<typeof OpenAiErrorBody>;
