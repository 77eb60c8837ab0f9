import { z } from 'zod';

/** Price of 1,000 tokens, per direction. */
export interface Price {
  input: number;
  output: number;
}

const PriceValue = z.union([
  z
    .number()
    .min(0)
    .transform((both) => ({ input: both, output: both })),
  z.object({ input: z.number().min(0), output: z.number().min(0) }).strict(),
]);

/**
 * The platform's model price table (`LOCAL_MODELS_PRICES`, `TRACING_MODEL_PRICES`): a JSON object of
 * model name → price per 1,000 tokens, one number or `{input, output}`.
 */
export const PriceTable = z
  .string()
  .default('{}')
  .transform((text, ctx) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be a JSON object of model name to price per 1,000 tokens' });
      return z.NEVER;
    }
    const result = z.record(z.string(), PriceValue).safeParse(parsed);
    if (!result.success) {
      ctx.addIssue({ code: 'custom', message: `must map model names to a number or {input, output}: ${result.error.issues[0]?.message}` });
      return z.NEVER;
    }
    return result.data;
  });

const FREE: Price = { input: 0, output: 0 };

/** Where a model runs: `embedded` is in-process on the platform's own machines and costs 0. */
export type ModelBackend = 'embedded' | 'ollama' | 'remote';

/** Looks prices up by exact name, then the name without `:latest`; unknown models cost 0. */
export class Pricing {
  constructor(private readonly table: Record<string, Price>) {}

  /** Whether the table names this model (so a cost of 0 means free, not unknown). */
  has(model: string): boolean {
    return this.find(model) !== undefined;
  }

  priceOf(model: string, backend: ModelBackend = 'remote'): Price {
    if (backend === 'embedded') return FREE;
    return this.find(model) ?? FREE;
  }

  cost(model: string, backend: ModelBackend, promptTokens: number, completionTokens: number): number {
    const price = this.priceOf(model, backend);
    return Math.round(((promptTokens * price.input + completionTokens * price.output) / 1000) * 1e8) / 1e8;
  }

  private find(model: string): Price | undefined {
    return this.table[model] ?? this.table[model.replace(/:latest$/, '')];
  }
}
