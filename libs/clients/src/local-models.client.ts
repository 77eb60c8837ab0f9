import { localModels } from '@platform/contracts';
import { z } from 'zod';
import { ServiceClient, type ClientOptions } from './service-client';

/** Ollama's `/api/generate` answer with `stream: false` (the local-models service speaks it). */
export const GenerateResponse = z
  .object({
    model: z.string(),
    response: z.string(),
    done: z.boolean().optional(),
    prompt_eval_count: z.number().int().optional(),
    eval_count: z.number().int().optional(),
    total_duration: z.number().optional(),
  })
  .loose();
export type GenerateResponse = z.infer<typeof GenerateResponse>;

/** Ollama's `/api/embed` answer. */
export const EmbedResponse = z.object({ model: z.string(), embeddings: z.array(z.array(z.number())), prompt_eval_count: z.number().int().optional() }).loose();
export type EmbedResponse = z.infer<typeof EmbedResponse>;

export interface GenerateRequest {
  model: string;
  prompt: string;
  system?: string;
  options?: { temperature?: number; seed?: number; num_predict?: number; [key: string]: unknown };
}

/** The local-models service (`LOCAL_MODELS_URL`, default port 3011) through its Ollama API. */
export class LocalModelsClient {
  readonly http: ServiceClient;

  constructor(options: Omit<ClientOptions, 'service'>) {
    this.http = new ServiceClient({ service: 'local-models', ...options });
  }

  /** One completion, not streamed. Generation is not retried by the client: it costs time. */
  generate(request: GenerateRequest, call: { bearer?: string; timeoutMs?: number; signal?: AbortSignal } = {}): Promise<GenerateResponse> {
    return this.http.request('POST', '/api/generate', { ...call, body: { ...request, stream: false }, schema: GenerateResponse });
  }

  /** Embeddings of one text or several; deterministic, so retried like a read. */
  embed(model: string, input: string | string[], call: { bearer?: string; timeoutMs?: number; signal?: AbortSignal } = {}): Promise<EmbedResponse> {
    return this.http.request('POST', '/api/embed', { ...call, body: { model, input }, schema: EmbedResponse, idempotent: true });
  }

  /** OpenAI's chat completion (`/v1/chat/completions`), whole; not retried (it costs time). */
  chatCompletion(
    request: Omit<localModels.ChatCompletionRequest, 'stream'>,
    call: { bearer?: string; timeoutMs?: number; signal?: AbortSignal } = {},
  ): Promise<localModels.ChatCompletion> {
    return this.http.request('POST', '/v1/chat/completions', { ...call, body: { ...request, stream: false }, schema: localModels.ChatCompletion });
  }

  /** OpenAI's model list (`/v1/models`). */
  models(call: { bearer?: string } = {}): Promise<localModels.ModelList> {
    return this.http.request('GET', '/v1/models', { ...call, schema: localModels.ModelList, idempotent: true });
  }

  tags(call: { bearer?: string } = {}): Promise<unknown> {
    return this.http.request('GET', '/api/tags', call);
  }
}
