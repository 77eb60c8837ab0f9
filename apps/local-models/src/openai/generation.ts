import type { localModels } from '@platform/contracts';
import { badRequest } from '@platform/http';
import { randomBytes } from 'node:crypto';
import type { SamplingParams } from '../backends/backend';
import type { EmbeddedBackend, EmbeddedInput } from '../backends/embedded.backend';
import type { OllamaBackend } from '../backends/ollama.backend';
import type { InferenceLimits } from '../inference/inference.service';
import { samplingFrom } from '../inference/sampling';
import type { ResolvedModel } from '../models/models.service';
import { toolPlan } from './embedded-tools';
import { embeddedChatInput, formatOf, ollamaChatBody, optionsOf, toolsOffered } from './openai.requests';

type ToolCall = localModels.OpenAiToolCall;

/** Where a generation's output goes as it is made: nowhere for a whole answer, SSE chunks for a stream. */
export interface Sink {
  text(text: string): void;
  toolCall(call: ToolCall, index: number): void;
}

/** A finished generation, whichever backend made it. */
export interface Generated {
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

export const NO_SINK: Sink = { text: () => undefined, toolCall: () => undefined };
export const newId = (prefix: string) => `${prefix}-${randomBytes(12).toString('hex')}`;
const finishOf = (calls: ToolCall[], reason: string | undefined): localModels.FinishReason =>
  calls.length > 0 ? 'tool_calls' : reason === 'length' ? 'length' : 'stop';

/**
 * An OpenAI request run on the model's backend: for Ollama translated to `/api/chat` or
 * `/api/generate` and its NDJSON read line by line; for a GGUF model run here, tools and
 * `response_format` made by grammar. Output goes to the sink as it is made.
 */
export class OpenAiGeneration {
  constructor(
    private readonly embedded: EmbeddedBackend | undefined,
    private readonly ollama: OllamaBackend | undefined,
    private readonly limits: InferenceLimits,
  ) {}

  chat(model: ResolvedModel, body: localModels.ChatCompletionRequest, sink: Sink, signal: AbortSignal): Promise<Generated> {
    return model.backend === 'ollama' ? this.chatOllama(body, sink, signal) : this.chatEmbedded(model, body, sink, signal);
  }

  completion(model: ResolvedModel, body: localModels.TextCompletionRequest, prompt: string, sink: Sink, signal: AbortSignal): Promise<Generated> {
    return model.backend === 'ollama' ? this.completeOllama(body, prompt, sink, signal) : this.completeEmbedded(model, body, prompt, sink, signal);
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

  private ollamaBackend(): OllamaBackend {
    if (!this.ollama) throw new Error('no Ollama backend');
    return this.ollama;
  }
}
