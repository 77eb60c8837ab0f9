import type { Logger } from '@platform/telemetry';
import { ApiError, notFound } from '@platform/http';
import type { Response } from 'express';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { StringDecoder } from 'node:string_decoder';
import { normalizeModelName, upstreamError, type ModelSummary } from './backend';

export interface OllamaOptions {
  baseUrl: string;
  /** Longest silence of Ollama within one call (before the answer or between streamed chunks). */
  timeoutMs: number;
  /** How long the list of Ollama's models is reused. */
  tagsTtlMs: number;
}

/** Listing and probing wait at most this long, whatever OLLAMA_TIMEOUT allows generations. */
const LISTING_TIMEOUT_MS = 10_000;
const NEVER = new AbortController().signal;

interface OllamaTag {
  name: string;
  model?: string;
  modified_at?: string;
  size?: number;
  digest?: string;
  details?: Partial<ModelSummary['details']>;
}

/** An Ollama server at `OLLAMA_URL`: its models are listed as ours and its answers passed through. */
export class OllamaBackend {
  private tags?: { at: number; models: Promise<ModelSummary[]> };
  private readonly agent: http.Agent;

  constructor(
    private readonly options: OllamaOptions,
    private readonly logger: Logger,
  ) {
    const agentOptions = { keepAlive: true, maxSockets: 256 };
    this.agent = options.baseUrl.startsWith('https:') ? new https.Agent(agentOptions) : new http.Agent(agentOptions);
  }

  /** Closes the kept-alive connections. */
  close(): void {
    this.agent.destroy();
  }

  get url(): string {
    return this.options.baseUrl;
  }

  /** Ollama's models (cached for `tagsTtlMs`); 502 when Ollama does not answer. */
  list(fresh = false): Promise<ModelSummary[]> {
    if (!fresh && this.tags && Date.now() - this.tags.at < this.options.tagsTtlMs) return this.tags.models;
    const models = this.fetchTags();
    this.tags = { at: Date.now(), models };
    models.catch(() => (this.tags = undefined));
    return models;
  }

  async find(name: string): Promise<ModelSummary | undefined> {
    const wanted = normalizeModelName(name);
    const match = (models: ModelSummary[]) => models.find((model) => normalizeModelName(model.name) === wanted);
    // A model pulled since the cached listing is found by asking again once.
    return match(await this.list()) ?? match(await this.list(true));
  }

  /** Readiness probe. */
  async ping(): Promise<void> {
    await readText(await this.call('GET', '/api/version', undefined, NEVER, LISTING_TIMEOUT_MS));
  }

  /** One JSON answer of a GET. */
  async get<T>(path: string): Promise<T> {
    return JSON.parse(await readText(await this.call('GET', path, undefined, NEVER, Math.min(this.options.timeoutMs, LISTING_TIMEOUT_MS)))) as T;
  }

  /** One JSON answer (`stream: false`) from `path`. */
  async request<T>(path: string, body: unknown, signal: AbortSignal): Promise<T> {
    const response = await this.call('POST', path, body, signal);
    return JSON.parse(await readText(response)) as T;
  }

  /**
   * A streamed answer of Ollama, one parsed NDJSON line at a time (for answers translated to another
   * API); Ollama's own error line, or a connection that breaks, ends it with an error.
   */
  async *lines<T>(path: string, body: unknown, signal: AbortSignal): AsyncGenerator<T> {
    const response = await this.call('POST', path, body, signal);
    const decoder = new StringDecoder('utf8');
    let tail = '';
    const parse = (line: string): T => {
      const parsed = JSON.parse(line) as T & { error?: string };
      if (typeof parsed.error === 'string') throw upstreamError('ollama', `Ollama failed mid-answer: ${parsed.error}`);
      return parsed;
    };
    try {
      for await (const chunk of response as AsyncIterable<Buffer>) {
        tail += decoder.write(chunk);
        let newline = tail.indexOf('\n');
        while (newline >= 0) {
          const line = tail.slice(0, newline).trim();
          tail = tail.slice(newline + 1);
          if (line) yield parse(line);
          newline = tail.indexOf('\n');
        }
      }
    } catch (error) {
      if (signal.aborted || error instanceof ApiError) throw error;
      throw upstreamError('ollama', `the Ollama backend stopped answering: ${(error as Error).message}`, { reason: 'broken' });
    }
    const last = (tail + decoder.end()).trim();
    if (last) yield parse(last);
  }

  /**
   * Passes Ollama's answer through as it arrives (NDJSON chunks or one object): status, content
   * type and bytes unchanged, so the service adds no buffering. A failure after the first byte
   * ends the stream with Ollama's own error line.
   */
  async proxy(path: string, body: unknown, res: Response, signal: AbortSignal): Promise<ProxiedUsage | undefined> {
    const upstream = await this.call('POST', path, body, signal);
    res.status(upstream.statusCode ?? 200);
    res.setHeader('Content-Type', upstream.headers['content-type'] ?? 'application/x-ndjson');
    if (upstream.headers['content-length']) res.setHeader('Content-Length', upstream.headers['content-length']);
    const tap = new LastLine();
    try {
      for await (const chunk of upstream as AsyncIterable<Buffer>) {
        tap.push(chunk);
        if (!res.write(chunk)) await new Promise<void>((resolve) => res.once('drain', resolve));
      }
    } catch (error) {
      if (!signal.aborted) {
        this.logger.warn({ err: error, path }, 'Ollama stream broke off');
        res.write(`${JSON.stringify({ error: `the Ollama backend stopped answering: ${(error as Error).message}` })}\n`);
      }
      res.end();
      return undefined;
    }
    res.end();
    return tap.usage();
  }

  private async fetchTags(): Promise<ModelSummary[]> {
    const response = await this.call('GET', '/api/tags', undefined, NEVER, Math.min(this.options.timeoutMs, LISTING_TIMEOUT_MS));
    const body = JSON.parse(await readText(response)) as { models?: OllamaTag[] };
    return (body.models ?? []).map((tag) => ({
      name: tag.name,
      model: tag.model ?? tag.name,
      modified_at: tag.modified_at ?? new Date(0).toISOString(),
      size: tag.size ?? 0,
      digest: tag.digest ?? '',
      details: {
        parent_model: tag.details?.parent_model ?? '',
        format: tag.details?.format ?? 'gguf',
        family: tag.details?.family ?? '',
        families: tag.details?.families ?? null,
        parameter_size: tag.details?.parameter_size ?? '',
        quantization_level: tag.details?.quantization_level ?? '',
      },
      backend: 'ollama' as const,
    }));
  }

  /**
   * One call to Ollama over a keep-alive connection (node:http: less per-call work than fetch):
   * network failures, timeouts and error statuses become clear API errors.
   */
  private async call(method: 'GET' | 'POST', path: string, body: unknown, signal: AbortSignal, timeoutMs = this.options.timeoutMs): Promise<IncomingMessage> {
    let response: IncomingMessage;
    try {
      response = await this.send(method, path, body, signal, timeoutMs);
    } catch (error) {
      if (signal.aborted && signal.reason instanceof ApiError) throw signal.reason;
      const timedOut = error instanceof OllamaTimeout;
      throw upstreamError('ollama', timedOut ? `Ollama was silent for ${timeoutMs} ms` : `Ollama at ${this.options.baseUrl} cannot be reached`, {
        reason: timedOut ? 'timeout' : 'unreachable',
        ...(!timedOut && { cause: (error as Error).message }),
      });
    }
    const status = response.statusCode ?? 502;
    if (status >= 200 && status < 300) return response;
    const text = await readText(response).catch(() => '');
    let message = text;
    try {
      message = (JSON.parse(text) as { error?: string }).error ?? text;
    } catch {
      // not JSON: keep the text
    }
    if (status === 404) throw notFound(`Ollama does not have it: ${message.slice(0, 500)}`, { dependency: 'ollama' });
    if (status >= 400 && status < 500) {
      // Ollama refused the request itself (bad option, model that cannot do this): the caller's fault.
      throw new ApiError(status === 413 ? 413 : 400, 'validation_error', 'invalid_request', `Ollama refused the request: ${message.slice(0, 500)}`, {
        dependency: 'ollama',
        status,
      });
    }
    throw upstreamError('ollama', `Ollama answered ${status}: ${message.slice(0, 500)}`, { status });
  }

  /** One request; `timeoutMs` of silence (before or during the answer) ends it with OllamaTimeout. */
  private send(method: 'GET' | 'POST', path: string, body: unknown, signal: AbortSignal, timeoutMs: number): Promise<IncomingMessage> {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const url = new URL(path, this.options.baseUrl);
    return new Promise((resolve, reject) => {
      const request = (url.protocol === 'https:' ? https.request : http.request)(
        url,
        { method, agent: this.agent, signal, headers: payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {} },
        resolve,
      );
      request.setTimeout(timeoutMs, () => request.destroy(new OllamaTimeout()));
      request.on('error', reject);
      request.end(payload);
    });
  }
}

class OllamaTimeout extends Error {
  constructor() {
    super('Ollama did not answer in time');
  }
}

/** Token counts of a passed-through answer, from its last line (the `done: true` one). */
export interface ProxiedUsage {
  promptTokens: number;
  completionTokens: number;
}

/** Keeps the last line of a stream (or the whole body of a one-object answer, up to 16 MiB). */
class LastLine {
  private static readonly MAX = 16 * 1024 * 1024;
  private readonly decoder = new StringDecoder('utf8');
  private tail = '';
  private last = '';

  push(chunk: Buffer): void {
    this.tail += this.decoder.write(chunk);
    let newline = this.tail.indexOf('\n');
    while (newline >= 0) {
      const line = this.tail.slice(0, newline).trim();
      if (line) this.last = line;
      this.tail = this.tail.slice(newline + 1);
      newline = this.tail.indexOf('\n');
    }
    if (this.tail.length > LastLine.MAX) this.tail = '';
  }

  usage(): ProxiedUsage | undefined {
    const line = (this.tail + this.decoder.end()).trim() || this.last;
    try {
      const final = JSON.parse(line) as { done?: boolean; prompt_eval_count?: number; eval_count?: number };
      if (final.done !== true) return undefined;
      return { promptTokens: final.prompt_eval_count ?? 0, completionTokens: final.eval_count ?? 0 };
    } catch {
      return undefined;
    }
  }
}

function readText(response: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    response.on('data', (chunk: Buffer) => chunks.push(chunk));
    response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    response.on('error', reject);
    response.on('aborted', () => reject(new Error('the answer broke off')));
  });
}
