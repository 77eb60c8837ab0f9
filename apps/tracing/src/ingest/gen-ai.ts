import type { Pricing } from '@platform/contracts';
import type { AnyValue } from './otlp.codec';

type Attrs = Record<string, AnyValue>;

/** What a span says of a model call and of who made it, as stored in the span's own columns. */
export interface ModelCall {
  sessionId: string | null;
  userId: string | null;
  model: string | null;
  modelSystem: string | null;
  inputTokens: bigint | null;
  outputTokens: bigint | null;
  cost: number | null;
}

const MAX_ID = 256;

const text = (value: AnyValue | undefined): string | null => {
  const found = value?.stringValue ?? (value?.intValue !== undefined ? value.intValue : undefined);
  return found && found.length > 0 ? found.slice(0, MAX_ID) : null;
};

const count = (value: AnyValue | undefined): bigint | null => {
  const raw = value?.intValue ?? (value?.doubleValue !== undefined ? String(Math.trunc(value.doubleValue)) : value?.stringValue);
  if (raw === undefined || !/^\d{1,15}$/.test(raw)) return null;
  return BigInt(raw);
};

const first = <T>(...values: Array<T | null>): T | null => values.find((value) => value !== null) ?? null;

/**
 * Reads GenAI semantic-convention attributes (`gen_ai.*`), with the OpenInference ones (`llm.*`) and
 * the older `gen_ai.usage.prompt_tokens` as fallbacks, and `session.id` / `user.id` of the span or
 * its resource. The cost comes from the platform's price table (per 1,000 tokens), looked up by
 * the model that answered, else the one asked; NULL for a model the table does not name.
 */
export function modelCallOf(attributes: Attrs, resource: Attrs, pricing: Pricing | undefined): ModelCall {
  const responseModel = text(attributes['gen_ai.response.model']);
  const requestModel = first(text(attributes['gen_ai.request.model']), text(attributes['llm.model_name']));
  const model = first(responseModel, requestModel);
  const inputTokens = first(
    count(attributes['gen_ai.usage.input_tokens']),
    count(attributes['gen_ai.usage.prompt_tokens']),
    count(attributes['llm.token_count.prompt']),
  );
  const outputTokens = first(
    count(attributes['gen_ai.usage.output_tokens']),
    count(attributes['gen_ai.usage.completion_tokens']),
    count(attributes['llm.token_count.completion']),
  );
  const priced = pricing && model ? [responseModel, requestModel].find((name): name is string => name !== null && pricing.has(name)) : undefined;
  const cost = priced && pricing ? pricing.cost(priced, 'remote', Number(inputTokens ?? 0n), Number(outputTokens ?? 0n)) : null;
  return {
    sessionId: first(text(attributes['session.id']), text(resource['session.id'])),
    userId: first(text(attributes['user.id']), text(resource['user.id'])),
    model,
    modelSystem: model ? first(text(attributes['gen_ai.system']), text(attributes['gen_ai.provider.name']), text(attributes['llm.system'])) : null,
    inputTokens: model ? inputTokens : null,
    outputTokens: model ? outputTokens : null,
    cost: model ? cost : null,
  };
}
