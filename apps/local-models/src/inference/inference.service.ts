import type { localModels } from '@platform/contracts';
import { badRequest } from '@platform/http';
import type { Response } from 'express';
import type { ChatHistoryItem } from 'node-llama-cpp';
import type { GenerationOutcome, SamplingParams } from '../backends/backend';
import type { EmbeddedBackend, EmbeddedInput } from '../backends/embedded.backend';
import type { OllamaBackend } from '../backends/ollama.backend';
import type { ModelCatalog, ResolvedModel } from '../models/models.service';
import type { UsageService } from '../usage/usage.service';
import { NdjsonStream } from './ndjson';
import { samplingFrom } from './sampling';

export interface InferenceLimits {
  /** The most tokens one answer may have (`num_predict` beyond it is cut to it). */
  maxPredict: number;
}

/** A whole answer (`stream: false`), sent as JSON by the router; streamed answers are written to the response. */
type OneAnswer = Record<string, unknown>;

/** Who asked: recorded with the usage of the call. */
export interface Caller {
  subject: string;
  requestId?: string;
}

/** What `/invoke` needs of one generation, whichever backend ran it. */
export interface Completion {
  model: string;
  backend: 'embedded' | 'ollama';
  output: string | number[];
  promptTokens: number;
  completionTokens: number;
}

const now = () => new Date().toISOString();

function timings(outcome: GenerationOutcome) {
  return {
    total_duration: outcome.totalNs,
    load_duration: outcome.loadNs,
    prompt_eval_count: outcome.promptTokens,
    prompt_eval_duration: outcome.promptEvalNs,
    eval_count: outcome.evalTokens,
    eval_duration: outcome.evalNs,
  };
}

/** Features that only an Ollama backend offers; an embedded model says no clearly. */
function refuseUnsupported(model: string, fields: Record<string, unknown>): void {
  const unsupported = Object.entries(fields)
    .filter(([, value]) => value !== undefined && !(Array.isArray(value) && value.length === 0))
    .map(([name]) => name);
  if (unsupported.length > 0) {
    throw badRequest(`The embedded model ${model} does not support ${unsupported.join(', ')}`, { model, unsupported });
  }
}

/** Chat messages → node-llama-cpp's history plus the user message to answer. */
function chatInput(model: string, messages: localModels.ChatMessage[]): EmbeddedInput & { kind: 'chat' } {
  const system = messages.filter((message) => message.role === 'system').map((message) => message.content);
  const rest = messages.filter((message) => message.role !== 'system');
  const last = rest.at(-1);
  if (!last || last.role !== 'user') throw badRequest('The last chat message must be from the user', { model, field: 'messages' });
  const history: ChatHistoryItem[] = [];
  for (const message of rest.slice(0, -1)) {
    if (message.role === 'user') history.push({ type: 'user', text: message.content });
    else if (message.role === 'assistant') history.push({ type: 'model', response: [message.content] });
    else throw badRequest(`The embedded model ${model} does not take '${message.role}' messages`, { model, field: 'messages' });
  }
  return { kind: 'chat', system: system.length > 0 ? system.join('\n\n') : undefined, history, prompt: last.content };
}

/**
 * Ollama's `/api/generate`, `/api/chat` and `/api/embed`: an Ollama model's request is passed to
 * Ollama and its answer streamed back byte for byte; an embedded model runs here.
 */
export class InferenceService {
  constructor(
    private readonly catalog: ModelCatalog,
    private readonly embedded: EmbeddedBackend | undefined,
    private readonly ollama: OllamaBackend | undefined,
    private readonly limits: InferenceLimits,
    private readonly usage: UsageService,
  ) {}

  private recordProxied(
    caller: Caller,
    endpoint: string,
    model: string,
    started: number,
    usage: { promptTokens: number; completionTokens: number } | undefined,
  ): void {
    if (!usage) return;
    this.usage.record({ ...caller, endpoint, model, backend: 'ollama', ...usage, durationMs: performance.now() - started, status: 'ok' });
  }

  async generate(body: localModels.GenerateRequest, res: Response, signal: AbortSignal, caller: Caller): Promise<OneAnswer | undefined> {
    const started = performance.now();
    const model = await this.catalog.resolve(body.model);
    if (model.backend === 'ollama')
      return void this.recordProxied(caller, 'generate', model.name, started, await this.ollamaBackend().proxy('/api/generate', body, res, signal));
    refuseUnsupported(model.name, { images: body.images, suffix: body.suffix });
    if (!body.prompt) return this.loadOnly(model, body.stream, res, { response: '' });
    const input: EmbeddedInput = body.raw
      ? { kind: 'completion', prompt: body.prompt }
      : { kind: 'chat', system: body.system, history: [], prompt: body.prompt };
    return this.runEmbedded(
      model,
      input,
      { ...samplingFrom(body.options, this.limits.maxPredict), format: body.format },
      body.stream !== false,
      res,
      signal,
      { caller, endpoint: 'generate' },
      (text) => ({ response: text }),
    );
  }

  async chat(body: localModels.ChatRequest, res: Response, signal: AbortSignal, caller: Caller): Promise<OneAnswer | undefined> {
    const started = performance.now();
    const model = await this.catalog.resolve(body.model);
    if (model.backend === 'ollama')
      return void this.recordProxied(caller, 'chat', model.name, started, await this.ollamaBackend().proxy('/api/chat', body, res, signal));
    refuseUnsupported(model.name, { tools: body.tools, images: body.messages.flatMap((message) => message.images ?? []) });
    if (body.messages.length === 0) return this.loadOnly(model, body.stream, res, { message: { role: 'assistant', content: '' } });
    const input = chatInput(model.name, body.messages);
    return this.runEmbedded(
      model,
      input,
      { ...samplingFrom(body.options, this.limits.maxPredict), format: body.format },
      body.stream !== false,
      res,
      signal,
      { caller, endpoint: 'chat' },
      (text) => ({
        message: { role: 'assistant', content: text },
      }),
    );
  }

  async embed(body: localModels.EmbedRequest, signal: AbortSignal, caller: Caller, endpoint = 'embed'): Promise<localModels.EmbedResponse> {
    const started = performance.now();
    const model = await this.catalog.resolve(body.model);
    if (model.backend === 'ollama') {
      const answer = await this.ollamaBackend().request<localModels.EmbedResponse>('/api/embed', body, signal);
      this.recordProxied(caller, endpoint, model.name, started, { promptTokens: answer.prompt_eval_count ?? 0, completionTokens: 0 });
      return answer;
    }
    const inputs = typeof body.input === 'string' ? [body.input] : body.input;
    const outcome = await this.embeddedBackend().embed(model.entry, inputs, body.truncate !== false, signal);
    this.usage.record({
      ...caller,
      endpoint,
      model: model.name,
      backend: 'embedded',
      promptTokens: outcome.promptTokens,
      completionTokens: 0,
      durationMs: outcome.totalNs / 1e6,
      status: 'ok',
    });
    return {
      model: model.name,
      embeddings: outcome.embeddings,
      total_duration: outcome.totalNs,
      load_duration: outcome.loadNs,
      prompt_eval_count: outcome.promptTokens,
    };
  }

  /** One whole answer for `/invoke`, from either backend, with its token counts. */
  async complete(
    tool: 'generate' | 'chat' | 'embed',
    input: { model: string; prompt: string; system?: string; options?: localModels.ModelOptions },
    signal: AbortSignal,
    caller: Caller,
  ): Promise<Completion> {
    const started = performance.now();
    const endpoint = `invoke:${tool}`;
    const model = await this.catalog.resolve(input.model);
    if (tool === 'embed') {
      const answer = await this.embed({ model: input.model, input: input.prompt }, signal, caller, endpoint);
      return {
        model: model.name,
        backend: model.backend,
        output: answer.embeddings[0] ?? [],
        promptTokens: answer.prompt_eval_count ?? 0,
        completionTokens: 0,
      };
    }
    if (model.backend === 'ollama') {
      const ollama = this.ollamaBackend();
      const answer =
        tool === 'generate'
          ? await ollama.request<localModels.GenerateResponse>(
              '/api/generate',
              { model: input.model, prompt: input.prompt, system: input.system, options: input.options, stream: false },
              signal,
            )
          : await ollama.request<localModels.ChatResponse>(
              '/api/chat',
              {
                model: input.model,
                messages: [...(input.system ? [{ role: 'system', content: input.system }] : []), { role: 'user', content: input.prompt }],
                options: input.options,
                stream: false,
              },
              signal,
            );
      const output =
        tool === 'generate'
          ? String((answer as localModels.GenerateResponse).response ?? '')
          : String((answer as localModels.ChatResponse).message?.content ?? '');
      const usage = { promptTokens: answer.prompt_eval_count ?? 0, completionTokens: answer.eval_count ?? 0 };
      this.recordProxied(caller, endpoint, model.name, started, usage);
      return { model: model.name, backend: 'ollama', output, ...usage };
    }
    const embeddedInput: EmbeddedInput = { kind: 'chat', system: input.system, history: [], prompt: input.prompt };
    const outcome = await this.embeddedBackend().generate(
      model.entry,
      embeddedInput,
      samplingFrom(input.options, this.limits.maxPredict),
      () => undefined,
      signal,
    );
    this.recordEmbedded(caller, endpoint, model.name, outcome);
    return { model: model.name, backend: 'embedded', output: outcome.text, promptTokens: outcome.promptTokens, completionTokens: outcome.evalTokens };
  }

  /** Ollama answers an empty prompt by loading the model: `done_reason: load`. */
  private async loadOnly<T extends object>(
    model: ResolvedModel & { backend: 'embedded' },
    stream: boolean | undefined,
    res: Response,
    empty: T,
  ): Promise<OneAnswer | undefined> {
    const loadNs = await this.embeddedBackend().load(model.entry);
    const answer = { model: model.name, created_at: now(), ...empty, done: true, done_reason: 'load', load_duration: loadNs, total_duration: loadNs };
    if (stream === false) return answer;
    new NdjsonStream(res).end(answer);
    return undefined;
  }

  private async runEmbedded<T extends object>(
    model: ResolvedModel & { backend: 'embedded' },
    input: EmbeddedInput,
    sampling: SamplingParams,
    streaming: boolean,
    res: Response,
    signal: AbortSignal,
    call: { caller: Caller; endpoint: string },
    content: (text: string) => T,
  ): Promise<OneAnswer | undefined> {
    const backend = this.embeddedBackend();
    const stream = new NdjsonStream(res);
    let outcome: GenerationOutcome;
    try {
      outcome =
        sampling.maxTokens === 0
          ? { text: '', promptTokens: 0, evalTokens: 0, doneReason: 'length', loadNs: await backend.load(model.entry), promptEvalNs: 0, evalNs: 0, totalNs: 0 }
          : await backend.generate(
              model.entry,
              input,
              sampling,
              (text) => {
                if (streaming && text.length > 0) stream.write({ model: model.name, created_at: now(), ...content(text), done: false });
              },
              signal,
            );
    } catch (error) {
      if (!stream.started) throw error;
      return void stream.fail((error as Error).message);
    }
    if (sampling.maxTokens > 0) this.recordEmbedded(call.caller, call.endpoint, model.name, outcome);
    const final = {
      model: model.name,
      created_at: now(),
      ...content(streaming ? '' : outcome.text),
      done: true,
      done_reason: outcome.doneReason,
      ...timings(outcome),
    };
    if (!streaming) return final;
    if (!res.writableEnded) stream.end(final);
    return undefined;
  }

  private recordEmbedded(caller: Caller, endpoint: string, model: string, outcome: GenerationOutcome): void {
    this.usage.record({
      ...caller,
      endpoint,
      model,
      backend: 'embedded',
      promptTokens: outcome.promptTokens,
      completionTokens: outcome.evalTokens,
      durationMs: outcome.totalNs / 1e6,
      status: outcome.doneReason === 'abort' ? 'aborted' : 'ok',
    });
  }

  private ollamaBackend(): OllamaBackend {
    if (!this.ollama) throw new Error('no Ollama backend');
    return this.ollama;
  }

  private embeddedBackend(): EmbeddedBackend {
    if (!this.embedded) throw new Error('no embedded backend');
    return this.embedded;
  }
}
