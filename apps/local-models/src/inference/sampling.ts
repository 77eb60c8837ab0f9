import type { localModels } from '@platform/contracts';
import type { SamplingParams } from '../backends/backend';

/** Ollama's defaults where a request is silent. */
const DEFAULT_TEMPERATURE = 0.8;

/** Ollama `options` → node-llama-cpp sampling; `num_predict` at most `maxPredict` (-1/-2 mean the maximum). */
export function samplingFrom(options: localModels.ModelOptions | undefined, maxPredict: number): SamplingParams {
  const requested = options?.num_predict;
  return {
    maxTokens: requested !== undefined && requested > 0 ? Math.min(requested, maxPredict) : requested === 0 ? 0 : maxPredict,
    temperature: options?.temperature ?? DEFAULT_TEMPERATURE,
    seed: options?.seed,
    topK: options?.top_k,
    topP: options?.top_p,
    minP: options?.min_p,
    repeatPenalty: options?.repeat_penalty,
    stop: options?.stop,
  };
}
