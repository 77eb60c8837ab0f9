import type { localModels } from '@platform/contracts';
import { badRequest } from '@platform/http';
import type { Response } from 'express';
import { randomBytes } from 'node:crypto';
import type { SamplingParams } from '../backends/backend';
import type { EmbeddedBackend, EmbeddedInput } from '../backends/embedded.backend';
import type { OllamaBackend } from '../backends/ollama.backend';
import type { Caller, InferenceLimits, InferenceService } from '../inference/inference.service';
import { samplingFrom } from '../inference/sampling';
import type { ModelCatalog, ResolvedModel } from '../models/models.service';
import type { UsageService } from '../usage/usage.service';
import { toolPlan } from './embedded-tools';
import { embeddedChatInput, formatOf, ollamaChatBody, optionsOf, toolsOffered } from './openai.requests';
import { SseStream } from './sse';

type ToolCall = localModels.OpenAiToolCall;

/** Where a generation's output goes as it is made: nowhere for a whole answer, SSE chunks for a stream. */
interface Sink {
  text(text: string): void;
  toolCall(call: ToolCall, index: number): void;
}

/** A finished generation, whichever backend made it. */
interface Generated {
  content: string;
  calls: ToolCall[];
  promptTokens: number;
  completionTokens: number;
  finish: localModels.FinishReason;
}

interface OllamaLine {
  response?: string;
  message?: { content?: string; tool_calls?: Array<{ function?: { name?: string; arguments?: unknown } }> };
  done?: boolean;
  done_reason?: string;
  prompt_eval_count?: number;
  eval_count?: number;
}

const NO_SINK: Sink = { text: () => undefined, toolCall: () => undefined };
const newId = (prefix: string) => `${prefix}-${randomBytes(12).toString('hex')}`;
const seconds = () => Math.floor(Date.now() / 1000);
const usageOf = (generated: Generated): localModels.OpenAiUsage => ({
  prompt_tokens: generated.promptTokens,
  completion_tokens: generated.completionTokens,
  total_tokens: generated.promptTokens + generated.completionTokens,
});
const finishOf = (calls: ToolCall[], reason: string | undefined): localModels.FinishReason =>
  calls.length > 0 ? 'tool_calls' : reason === 'length' ? 'length' : 'stop';

/** A vector as OpenAI's `base64` encoding: little-endian float32 bytes. */
function base64Vector(vector: number[]): string {
  const floats = Float32Array.from(vector);
  return Buffer.from(floats.buffer, floats.byteOffset, floats.byteLength).toString('base64');
}

/**
 * OpenAI's API over the same backends as the Ollama routes (as Ollama, vLLM and LiteLLM serve it):
 * an Ollama model's request is translated to `/api/chat` or `/api/generate` and its NDJSON answer
 * to OpenAI's shapes line by line; an embedded model runs here, with `response_format` and tool
 * calls made by a grammar. Every call is recorded with its usage, as on the Ollama routes.
 */
export class OpenAiService {
  constructor(
    private readonly catalog: ModelCatalog,
    private readonly embedded: EmbeddedBackend | undefined,
    private readonly ollama: OllamaBackend | undefined,
    private readonly inference: InferenceService,
    private readonly limits: InferenceLimits,
    private readonly usage: UsageService,
  ) {}

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
      generated = model.backend === 'ollama' ? await this.chatOllama(body, sink, signal) : await this.chatEmbedded(model, body, sink, signal);
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
      generated = model.backend === 'ollama' ? await this.completeOllama(body, prompt, sink, signal) : await this.completeEmbedded(model, body, prompt, sink, signal);
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

  private async chatOllama(body: localModels.ChatCompletionRequest, sink: Sink, signal: AbortSignal): Promise<Generated> {
    let content = '';
    const calls: ToolCall[] = [];
    let final: OllamaLine | undefined;
    for await (const line of this.ollamaBackend().lines<OllamaLine>('/api/chat', ollamaChatBody(body, body.stream === true), signal)) {
      const text = line.message?.content ?? '';
      if (text) {
        content += text;
        sink.text(text);
      }
      for (const call of line.message?.tool_calls ?? []) {
        const args = call.function?.arguments;
        const made: ToolCall = {
          id: newId('call'),
          type: 'function',
          function: { name: call.function?.name ?? '', arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}) },
        };
        calls.push(made);
        sink.toolCall(made, calls.length - 1);
      }
      if (line.done) final = line;
    }
    return { content, calls, promptTokens: final?.prompt_eval_count ?? 0, completionTokens: final?.eval_count ?? 0, finish: finishOf(calls, final?.done_reason) };
  }

  private async completeOllama(body: localModels.TextCompletionRequest, prompt: string, sink: Sink, signal: AbortSignal): Promise<Generated> {
    let content = '';
    let final: OllamaLine | undefined;
    const request = {
      model: body.model,
      prompt,
      raw: true,
      stream: body.stream === true,
      options: optionsOf(body),
      ...(body.suffix && { suffix: body.suffix }),
    };
    for await (const line of this.ollamaBackend().lines<OllamaLine>('/api/generate', request, signal)) {
      if (line.response) {
        content += line.response;
        sink.text(line.response);
      }
      if (line.done) final = line;
    }
    return { content, calls: [], promptTokens: final?.prompt_eval_count ?? 0, completionTokens: final?.eval_count ?? 0, finish: finishOf([], final?.done_reason) };
  }

  private async chatEmbedded(model: ResolvedModel & { backend: 'embedded' }, body: localModels.ChatCompletionRequest, sink: Sink, signal: AbortSignal): Promise<Generated> {
    const input = embeddedChatInput(model.name, body.messages);
    const plan = toolPlan(toolsOffered(body), body.tool_choice);
    const sampling = { ...samplingFrom(optionsOf(body), this.limits.maxPredict), format: plan?.format ?? formatOf(body.response_format) };
    // With tools the output is JSON to decode first: it is sent once whole.
    const outcome = await this.generateEmbedded(model, input, sampling, plan ? () => undefined : sink.text, signal);
    const decoded = plan ? plan.decode(outcome.text) : { content: outcome.text, calls: [] };
    const calls: ToolCall[] = decoded.calls.map((call) => ({ id: newId('call'), type: 'function', function: call }));
    if (plan && decoded.content) sink.text(decoded.content);
    calls.forEach((call, index) => sink.toolCall(call, index));
    return {
      content: decoded.content ?? '',
      calls,
      promptTokens: outcome.promptTokens,
      completionTokens: outcome.evalTokens,
      finish: finishOf(calls, outcome.doneReason),
    };
  }

  private async completeEmbedded(
    model: ResolvedModel & { backend: 'embedded' },
    body: localModels.TextCompletionRequest,
    prompt: string,
    sink: Sink,
    signal: AbortSignal,
  ): Promise<Generated> {
    if (body.suffix) throw badRequest(`The embedded model ${model.name} does not support suffix`, { param: 'suffix' });
    if (!prompt) throw badRequest('The prompt is empty', { param: 'prompt' });
    const outcome = await this.generateEmbedded(model, { kind: 'completion', prompt }, samplingFrom(optionsOf(body), this.limits.maxPredict), sink.text, signal);
    return { content: outcome.text, calls: [], promptTokens: outcome.promptTokens, completionTokens: outcome.evalTokens, finish: finishOf([], outcome.doneReason) };
  }

  private generateEmbedded(model: ResolvedModel & { backend: 'embedded' }, input: EmbeddedInput, sampling: SamplingParams, onText: (text: string) => void, signal: AbortSignal) {
    if (!this.embedded) throw new Error('no embedded backend');
    return this.embedded.generate(model.entry, input, sampling, onText, signal);
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

  private ollamaBackend(): OllamaBackend {
    if (!this.ollama) throw new Error('no Ollama backend');
    return this.ollama;
  }
}
