import { z } from 'zod';

/**
 * The gateway's model route (`/v1/chat/completions`, `/v1/embeddings`, `/v1/models` at the gateway,
 * as the LiteLLM proxy serves them) and the access each caller has to it.
 */

const ModelName = z.string().min(1).max(200).regex(/^\S+$/, 'no spaces');
/** A model name, or a prefix ending in `*` (`gpt-4o*`; `*` alone: every model). */
export const ModelPattern = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[^\s*]*\*?$/, 'a model name, or a prefix ending in *');

/** Model name → the models tried next, in order, when its upstream fails before answering. */
export const ModelFallbacks = z
  .record(ModelName, z.array(ModelName).min(1).max(5))
  .refine((fallbacks) => Object.keys(fallbacks).length <= 100, 'at most 100 models with fallbacks');
export type ModelFallbacks = z.infer<typeof ModelFallbacks>;

/** `PUT /api/v1/model-access/{subject}`: what the caller may call and spend, replacing what was set. */
export const ModelAccessRequest = z
  .object({
    models: z.array(ModelPattern).max(500).describe('Models the caller may call: names or prefixes ending in `*`; `["*"]` allows all, `[]` none'),
    monthlyTokenBudget: z.number().int().min(0).max(1e15).nullable().default(null).describe('Prompt plus completion tokens per calendar month (UTC); null: no budget'),
    fallbacks: ModelFallbacks.optional().describe("The caller's own fallbacks, tried before the configured ones"),
  })
  .strict()
  .meta({ id: 'ModelAccessRequest' });
export type ModelAccessRequest = z.infer<typeof ModelAccessRequest>;

export const ModelAccessSubject = z.object({ subject: z.string().min(1).max(200) });

export const ModelAccess = z
  .object({
    subject: z.string(),
    models: z.array(z.string()),
    monthlyTokenBudget: z.number().int().nullable(),
    fallbacks: ModelFallbacks,
    updatedBy: z.string().nullable(),
    updatedAt: z.string().nullable(),
    usage: z.object({
      month: z.string(),
      promptTokens: z.number().int(),
      completionTokens: z.number().int(),
      totalTokens: z.number().int(),
      requests: z.number().int(),
      remainingTokens: z.number().int().nullable(),
    }),
  })
  .meta({ id: 'ModelAccess' });
export type ModelAccess = z.infer<typeof ModelAccess>;

/** One OpenAI-compatible upstream of `GATEWAY_MODEL_UPSTREAMS`. */
export const ModelUpstream = z
  .object({
    name: z.string().regex(/^[a-z0-9][a-z0-9_.-]{0,62}$/),
    /** OpenAI's base URL of the upstream, `/v1` included (`https://api.openai.com/v1`). */
    url: z.string().url(),
    apiKeyEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).optional(),
    apiKey: z.string().min(1).optional(),
    /** `gen_ai.system` of its spans (`openai`, `vllm`…); the name by default. */
    system: z.string().min(1).max(100).optional(),
    models: z.array(z.union([ModelPattern, z.object({ name: ModelName, fallbacks: z.array(ModelName).min(1).max(5).optional() })])).min(1).max(500),
  })
  .strict();
export type ModelUpstream = z.infer<typeof ModelUpstream>;
