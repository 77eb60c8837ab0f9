import type { Logger } from '@platform/telemetry';
import { badRequest, serviceUnavailable, WorkLimiter } from '@platform/http';
import type { ChatHistoryItem, Llama, LlamaContext, LlamaContextSequence, LlamaEmbeddingContext, LlamaModel, Token } from 'node-llama-cpp';
import { nanoseconds, type EmbeddingOutcome, type GenerationOutcome, type SamplingParams } from './backend';
import type { GgufModel } from './gguf-library';
import { loadLlamaCpp } from './llama-cpp';

export interface EmbeddedOptions {
  /** Tokens of context per sequence (capped by the model's training context). */
  contextSize: number;
  /** Generations one model runs at once (sequences of its context); more wait their turn. */
  parallel: number;
  /** Requests that may wait for a model's turn; more are refused with 503. */
  queue: number;
  /** Models kept in memory; the least recently used idle one is unloaded past it. */
  maxLoaded: number;
  /** `auto` lets llama.cpp pick a GPU when the prebuilt binaries have one; `false` is CPU only. */
  gpu: 'auto' | 'false';
  /** CPU threads per context; 0 lets node-llama-cpp choose (all math cores). */
  threads: number;
}

export type EmbeddedInput = { kind: 'completion'; prompt: string } | { kind: 'chat'; system?: string; history: ChatHistoryItem[]; prompt: string };

const EMBEDDING_RESERVED_TOKENS = 4;

/** node-llama-cpp's "does not fit" errors are the caller's too-long input: 400, not 500. */
function contextErrors(model: string, contextSize: number) {
  return (error: unknown): never => {
    const message = (error as Error)?.message ?? '';
    if (/context size|usable context|compress chat history/i.test(message)) {
      throw badRequest(`The input does not fit the context of ${model} (${contextSize} tokens)`, { model, contextSize, reason: message });
    }
    throw error;
  };
}

interface Loaded {
  version: string;
  entry: GgufModel;
  model: LlamaModel;
  context: LlamaContext;
  contextSize: number;
  /** The context's sequences not in use; `slots` hands them out one per generation. */
  sequences: LlamaContextSequence[];
  slots: WorkLimiter;
  embedding?: Promise<LlamaEmbeddingContext>;
  embeddingLock: WorkLimiter;
  busy: number;
  /** Set (synchronously) when chosen for unloading: a request that got it just then loads it again. */
  evicted?: boolean;
  lastUsed: number;
}

/**
 * Inference inside the service with node-llama-cpp over GGUF files: one context per loaded model
 * with `parallel` sequences, a sequence per request, real token counts from the sequence's meter.
 */
export class EmbeddedBackend {
  private llama?: Promise<Llama>;
  private loaded = new Map<string, Promise<Loaded>>();
  /** The loads that finished (what eviction chooses from; a pending load is never waited for). */
  private ready = new Map<string, Loaded>();

  constructor(
    private readonly options: EmbeddedOptions,
    private readonly logger: Logger,
  ) {}

  async generate(
    entry: GgufModel,
    input: EmbeddedInput,
    params: SamplingParams,
    onChunk: (text: string) => void,
    signal: AbortSignal,
  ): Promise<GenerationOutcome> {
    const started = process.hrtime.bigint();
    const { loaded, loadNs } = await this.acquireModel(entry);
    try {
      return await loaded.slots.run(() => this.generateOn(loaded, entry, input, params, onChunk, signal, started, loadNs), signal);
    } finally {
      loaded.busy--;
      loaded.lastUsed = Date.now();
    }
  }

  /** One generation on a free sequence of a loaded model (the caller holds a slot). */
  private async generateOn(
    loaded: Loaded,
    entry: GgufModel,
    input: EmbeddedInput,
    params: SamplingParams,
    onChunk: (text: string) => void,
    signal: AbortSignal,
    started: bigint,
    loadNs: number,
  ): Promise<GenerationOutcome> {
    const { LlamaCompletion, LlamaChatSession } = await loadLlamaCpp();
    const sequence = loaded.sequences.pop()!;
    const before = sequence.tokenMeter.getState();
    try {
      const promptTokens = loaded.model.tokenize(input.prompt).length;
      if (promptTokens >= loaded.contextSize) {
        throw badRequest(`The prompt is ${promptTokens} tokens; the context of ${entry.name} holds ${loaded.contextSize}`, {
          promptTokens,
          contextSize: loaded.contextSize,
        });
      }
      const grammar = params.format === undefined ? undefined : await this.grammarFor(params.format);
      const evalStart = process.hrtime.bigint();
      let firstToken: bigint | undefined;
      const sampling = {
        maxTokens: params.maxTokens,
        temperature: params.temperature,
        seed: params.seed,
        topK: params.topK,
        topP: params.topP,
        minP: params.minP,
        repeatPenalty: params.repeatPenalty === undefined ? undefined : { penalty: params.repeatPenalty },
        customStopTriggers: params.stop,
        grammar,
        signal,
        stopOnAbortSignal: true,
        onToken: (_tokens: Token[]) => (firstToken ??= process.hrtime.bigint()),
        onTextChunk: onChunk,
      };
      let text: string;
      let stopReason: string;
      if (input.kind === 'completion') {
        const completion = new LlamaCompletion({ contextSequence: sequence, autoDisposeSequence: false });
        const result = await completion.generateCompletionWithMeta(input.prompt, sampling).catch(contextErrors(entry.name, loaded.contextSize));
        completion.dispose({ disposeSequence: false });
        text = result.response;
        stopReason = result.metadata.stopReason;
      } else {
        const session = new LlamaChatSession({ contextSequence: sequence, autoDisposeSequence: false });
        // Only the caller's system message: the chat wrapper's default one would be sent otherwise.
        session.setChatHistory([...(input.system ? [{ type: 'system' as const, text: input.system }] : []), ...input.history]);
        const result = await session.promptWithMeta(input.prompt, sampling).catch(contextErrors(entry.name, loaded.contextSize));
        session.dispose({ disposeSequence: false });
        text = result.responseText;
        stopReason = result.stopReason;
      }
      const ended = process.hrtime.bigint();
      const meter = sequence.tokenMeter.getState();
      return {
        text,
        promptTokens: meter.usedInputTokens - before.usedInputTokens,
        evalTokens: meter.usedOutputTokens - before.usedOutputTokens,
        doneReason: stopReason === 'maxTokens' ? 'length' : stopReason === 'abort' ? 'abort' : 'stop',
        loadNs,
        promptEvalNs: nanoseconds(evalStart, firstToken ?? ended),
        evalNs: nanoseconds(firstToken ?? ended, ended),
        totalNs: nanoseconds(started, ended),
      };
    } finally {
      // The next request starts from an empty sequence (its KV cache cleared).
      await sequence.clearHistory().catch((error: unknown) => this.logger.warn({ err: error }, 'sequence not cleared'));
      loaded.sequences.push(sequence);
    }
  }

  async embed(entry: GgufModel, inputs: string[], truncate: boolean, signal: AbortSignal): Promise<EmbeddingOutcome> {
    const started = process.hrtime.bigint();
    const { loaded, loadNs } = await this.acquireModel(entry);
    try {
      loaded.embedding ??= loaded.model.createEmbeddingContext({
        contextSize: loaded.contextSize,
        ...(this.options.threads > 0 && { threads: this.options.threads }),
      });
      const context = await loaded.embedding.catch((error: unknown) => {
        loaded.embedding = undefined;
        throw error;
      });
      return await loaded.embeddingLock.run(async () => {
        const embeddings: number[][] = [];
        let promptTokens = 0;
        for (const input of inputs) {
          let tokens = loaded.model.tokenize(input);
          // Room for the BOS/EOS tokens the embedding context adds.
          const room = loaded.contextSize - EMBEDDING_RESERVED_TOKENS;
          if (tokens.length > room) {
            if (!truncate)
              throw badRequest(`An input is ${tokens.length} tokens; the context of ${entry.name} embeds at most ${room}`, { contextSize: loaded.contextSize });
            tokens = tokens.slice(0, room);
          }
          promptTokens += tokens.length;
          const embedding = await context.getEmbeddingFor(tokens).catch(contextErrors(entry.name, loaded.contextSize));
          embeddings.push([...embedding.vector]);
        }
        return { embeddings, promptTokens, loadNs, totalNs: nanoseconds(started) };
      }, signal);
    } finally {
      loaded.busy--;
      loaded.lastUsed = Date.now();
    }
  }

  /** Loads a model (once) without generating: Ollama's answer to an empty prompt. */
  async load(entry: GgufModel): Promise<number> {
    const { loaded, loadNs } = await this.acquireModel(entry);
    loaded.busy--;
    return loadNs;
  }

  /** Names of the models in memory. */
  get loadedVersions(): string[] {
    return [...this.ready.keys()];
  }

  /** Generations running and waiting, over every loaded model (for `/health`). */
  async activity(): Promise<{ generating: number; waiting: number }> {
    const all = await this.running();
    return { generating: all.reduce((sum, model) => sum + model.generating, 0), waiting: all.reduce((sum, model) => sum + model.waiting, 0) };
  }

  /** The models in memory, with the bytes they hold (weights, context and KV cache). */
  async running(): Promise<Array<{ entry: GgufModel; size: number; lastUsed: number; generating: number; waiting: number }>> {
    return [...this.ready.values()].map((loaded) => ({
      entry: loaded.entry,
      size: loaded.model.size + loaded.context.stateSize,
      lastUsed: loaded.lastUsed,
      generating: loaded.slots.stats.running,
      waiting: loaded.slots.stats.waiting,
    }));
  }

  async close(): Promise<void> {
    const all = [...this.loaded.values()];
    this.loaded.clear();
    this.ready.clear();
    await Promise.allSettled(all.map(async (loading) => this.unload(await loading)));
    if (this.llama) await (await this.llama).dispose();
    this.llama = undefined;
  }

  /** The loaded model, marked busy (the caller decrements `busy`), and how long loading took. */
  private async acquireModel(entry: GgufModel): Promise<{ loaded: Loaded; loadNs: number }> {
    const started = process.hrtime.bigint();
    let loading = this.loaded.get(entry.version);
    const wasLoaded = loading !== undefined;
    if (!loading) {
      // In the map before the first await, so concurrent first requests share one load.
      loading = this.evictIdle(entry)
        .then(() => this.loadModel(entry))
        .then((loaded) => (this.ready.set(entry.version, loaded), loaded));
      this.loaded.set(entry.version, loading);
      loading.catch(() => this.loaded.delete(entry.version));
    }
    const loaded = await loading;
    if (loaded.evicted) return this.acquireModel(entry);
    loaded.busy++;
    loaded.lastUsed = Date.now();
    return { loaded, loadNs: wasLoaded ? 0 : nanoseconds(started) };
  }

  private async loadModel(entry: GgufModel): Promise<Loaded> {
    const { getLlama, LlamaLogLevel } = await loadLlamaCpp();
    this.llama ??= getLlama({
      gpu: this.options.gpu === 'false' ? false : 'auto',
      build: 'never',
      logLevel: LlamaLogLevel.warn,
      logger: (level, message) => this.llamaLog(level, message),
    }).catch((error: unknown) => {
      this.llama = undefined;
      throw error;
    });
    const llama = await this.llama;
    const started = Date.now();
    const model = await llama.loadModel({ modelPath: entry.file }).catch((error: unknown) => {
      this.logger.error({ err: error, file: entry.file }, 'embedded model failed to load');
      throw serviceUnavailable(`Model ${entry.name} cannot be loaded: ${(error as Error).message}`, { model: entry.name });
    });
    const contextSize = Math.min(this.options.contextSize, model.trainContextSize || this.options.contextSize);
    try {
      const context = await model.createContext({
        contextSize,
        sequences: this.options.parallel,
        ...(this.options.threads > 0 && { threads: this.options.threads }),
      });
      this.logger.info({ model: entry.name, file: entry.file, contextSize, ms: Date.now() - started }, 'embedded model loaded');
      const sequences = Array.from({ length: this.options.parallel }, () => context.getSequence());
      return {
        version: entry.version,
        entry,
        model,
        context,
        contextSize,
        sequences,
        slots: new WorkLimiter({ concurrency: this.options.parallel, queue: this.options.queue, name: entry.name }),
        embeddingLock: new WorkLimiter({ concurrency: 1, queue: this.options.queue, name: `${entry.name} embeddings` }),
        busy: 0,
        lastUsed: Date.now(),
      };
    } catch (error) {
      await model.dispose();
      throw error;
    }
  }

  /** Makes room for one more model: unloads idle models beyond `maxLoaded - 1`, and older versions of the same file. */
  private async evictIdle({ file, version }: GgufModel): Promise<void> {
    const settled = [...this.ready.values()].filter((loaded) => loaded.version !== version);
    const stale = settled.filter((loaded) => loaded.version.startsWith(`${file}:`) && loaded.busy === 0);
    const idle = settled.filter((loaded) => loaded.busy === 0 && !stale.includes(loaded)).sort((a, b) => a.lastUsed - b.lastUsed);
    const excess = Math.max(0, settled.length - stale.length - (this.options.maxLoaded - 1));
    for (const loaded of [...stale, ...idle.slice(0, excess)]) {
      loaded.evicted = true;
      this.loaded.delete(loaded.version);
      this.ready.delete(loaded.version);
      await this.unload(loaded);
    }
  }

  /** A grammar that keeps sampling to JSON, or to a JSON schema; a schema llama.cpp cannot express is a 400. */
  private async grammarFor(format: 'json' | Record<string, unknown>) {
    const llama = await this.llama!;
    if (format === 'json') return llama.getGrammarFor('json');
    try {
      return await llama.createGrammarForJsonSchema(format as never);
    } catch (error) {
      throw badRequest(`The format schema cannot be turned into a grammar: ${(error as Error).message}`, { field: 'format' });
    }
  }

  /** llama.cpp's own messages, into the service's log. */
  private llamaLog(level: string, message: string): void {
    const text = message.trim();
    if (!text) return;
    if (level === 'error' || level === 'fatal') this.logger.error({ source: 'llama.cpp' }, text);
    else if (level === 'warn') this.logger.warn({ source: 'llama.cpp' }, text);
    else this.logger.debug({ source: 'llama.cpp' }, text);
  }

  private async unload(loaded: Loaded): Promise<void> {
    this.logger.info({ version: loaded.version }, 'embedded model unloaded');
    if (loaded.embedding) await (await loaded.embedding.catch(() => undefined))?.dispose();
    await loaded.context.dispose();
    await loaded.model.dispose();
  }
}
