import type { localModels } from '@platform/contracts';
import { badRequest } from '@platform/http';
import type { Response } from 'express';
import type { EmbeddedBackend } from '../backends/embedded.backend';
import type { OllamaBackend } from '../backends/ollama.backend';
import type { Caller, InferenceLimits, InferenceService } from '../inference/inference.service';
import type { ModelCatalog, ResolvedModel } from '../models/models.service';
import type { UsageService } from '../usage/usage.service';
import { newId, NO_SINK, OpenAiGeneration, type Generated, type Sink } from './generation';
import { SseStream } from './sse';

const seconds = () => Math.floor(Date.now() / 1000);
const usageOf = (generated: Generated): localModels.OpenAiUsage => ({
  prompt_tokens: generated.promptTokens,
  completion_tokens: generated.completionTokens,
  total_tokens: generated.promptTokens + generated.completionTokens,
});

/** A vector as OpenAI's `base64` encoding: little-endian float32 bytes. */
function base64Vector(vector: number[]): string {
  const floats = Float32Array.from(vector);
  return Buffer.from(floats.buffer, floats.byteOffset, floats.byteLength).toString('base64');
}

/**
 * OpenAI's API over the same backends as the Ollama routes (as Ollama, vLLM and LiteLLM serve it):
 * the generation (`OpenAiGeneration`) shaped as OpenAI's answers, whole or as SSE chunks. Every
 * call is recorded with its usage, as on the Ollama routes.
 */
export class OpenAiService {
  private readonly generation: OpenAiGeneration;

  constructor(
    private readonly catalog: ModelCatalog,
    embedded: EmbeddedBackend | undefined,
    ollama: OllamaBackend | undefined,
    private readonly inference: InferenceService,
    limits: InferenceLimits,
    private readonly usage: UsageService,
  ) {
    this.generation = new OpenAiGeneration(embedded, ollama, limits);
  }

  async models(): Promise<localModels.ModelList> {
    const { models } = await this.catalog.list();
    return {
      object: 'list',
      data: models.map((model) => ({
        id: model.name,
        object: 'model',
        created: Math.floor(Date.parse(model.modified_at) / 1000) || 0,
        owned_by: model.backend === 'embedded' ? 'local-models' : 'ollama',
      })),
    };
  }

  async chat(body: localModels.ChatCompletionRequest, res: Response, signal: AbortSignal, caller: Caller): Promise<localModels.ChatCompletion | undefined> {
    const started = performance.now();
    const model = await this.catalog.resolve(body.model);
    const id = newId('chatcmpl');
    const created = seconds();
    const includeUsage = body.stream_options?.include_usage === true;
    const chunk = (delta: Record<string, unknown>, finish: localModels.FinishReason | null = null) => ({
      id,
      object: 'chat.completion.chunk',
      created,
      model: model.name,
      choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
      ...(includeUsage && { usage: null }),
    });
    const sse = body.stream ? new SseStream(res) : undefined;
    let roleSent = false;
    const role = () => (roleSent ? {} : ((roleSent = true), { role: 'assistant' }));
    const sink: Sink = sse
      ? {
          text: (text) => text && sse.send(chunk({ ...role(), content: text })),
          toolCall: (call, index) => sse.send(chunk({ ...role(), tool_calls: [{ index, id: call.id, type: 'function', function: call.function }] })),
        }
      : NO_SINK;
    let generated: Generated;
    try {
      generated = await this.generation.chat(model, body, sink, signal);
    } catch (error) {
      if (!sse?.started) throw error;
      return void sse.fail(error);
    }
    this.record(caller, 'chat.completions', model, generated, started, signal.aborted);
    if (!sse) {
      return {
        id,
        object: 'chat.completion',
        created,
        model: model.name,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: generated.calls.length > 0 && !generated.content ? null : generated.content, ...(generated.calls.length > 0 && { tool_calls: generated.calls }) },
            finish_reason: generated.finish,
            logprobs: null,
          },
        ],
        usage: usageOf(generated),
      };
    }
    if (!roleSent) sse.send(chunk({ ...role(), content: '' }));
    sse.send(chunk({}, generated.finish));
    if (includeUsage) sse.send({ id, object: 'chat.completion.chunk', created, model: model.name, choices: [], usage: usageOf(generated) });
    sse.done();
    return undefined;
  }

  async completion(body: localModels.TextCompletionRequest, res: Response, signal: AbortSignal, caller: Caller): Promise<localModels.TextCompletion | undefined> {
    const started = performance.now();
    const model = await this.catalog.resolve(body.model);
    const prompt = typeof body.prompt === 'string' ? body.prompt : body.prompt[0];
    const id = newId('cmpl');
    const created = seconds();
    const includeUsage = body.stream_options?.include_usage === true;
    const chunk = (text: string, finish: localModels.FinishReason | null = null) => ({
      id,
      object: 'text_completion',
      created,
      model: model.name,
      choices: [{ index: 0, text, finish_reason: finish, logprobs: null }],
      ...(includeUsage && { usage: null }),
    });
    const sse = body.stream ? new SseStream(res) : undefined;
    const echo = body.echo === true ? prompt : '';
    let echoed = false;
    const sink: Sink = sse
      ? {
          text: (text) => {
            if (!text) return;
            sse.send(chunk(echoed ? text : echo + text));
            echoed = true;
          },
          toolCall: () => undefined,
        }
      : NO_SINK;
    let generated: Generated;
    try {
      generated = await this.generation.completion(model, body, prompt, sink, signal);
    } catch (error) {
      if (!sse?.started) throw error;
      return void sse.fail(error);
    }
    this.record(caller, 'completions', model, generated, started, signal.aborted);
    if (!sse) {
      return {
        id,
        object: 'text_completion',
        created,
        model: model.name,
        choices: [{ index: 0, text: echo + generated.content, finish_reason: generated.finish, logprobs: null }],
        usage: usageOf(generated),
      };
    }
    sse.send(chunk(echoed ? '' : echo, generated.finish));
    if (includeUsage) sse.send({ id, object: 'text_completion', created, model: model.name, choices: [], usage: usageOf(generated) });
    sse.done();
    return undefined;
  }

  async embeddings(body: localModels.EmbeddingsRequest, signal: AbortSignal, caller: Caller): Promise<localModels.Embeddings> {
    const model = await this.catalog.resolve(body.model);
    if (body.dimensions !== undefined && model.backend === 'embedded') {
      throw badRequest(`The embedded model ${model.name} embeds in its own number of dimensions`, { param: 'dimensions' });
    }
    const answer = await this.inference.embed(
      { model: body.model, input: body.input, truncate: true, ...(body.dimensions !== undefined && { dimensions: body.dimensions }) },
      signal,
      caller,
      'embeddings',
    );
    const tokens = answer.prompt_eval_count ?? 0;
    return {
      object: 'list',
      data: answer.embeddings.map((vector, index) => ({
        object: 'embedding',
        index,
        embedding: body.encoding_format === 'base64' ? base64Vector(vector) : vector,
      })),
      model: model.name,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    };
  }

  private record(caller: Caller, endpoint: string, model: ResolvedModel, generated: Generated, started: number, aborted: boolean): void {
    this.usage.record({
      ...caller,
      endpoint,
      model: model.name,
      backend: model.backend,
      promptTokens: generated.promptTokens,
      completionTokens: generated.completionTokens,
      durationMs: performance.now() - started,
      status: aborted ? 'aborted' : 'ok',
    });
  }

}
