import type { Logger } from '@platform/telemetry';
import { ApiError, notFound } from '@platform/http';
import type { Response } from 'express';
import { normalizeModelName, upstreamError, type ModelSummary } from './backend';

export interface OllamaOptions {
  baseUrl: string;
  /** Longest one call may take, streamed answers included. */
  timeoutMs: number;
  /** How long the list of Ollama's models is reused. */
  tagsTtlMs: number;
}

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

  constructor(
    private readonly options: OllamaOptions,
    private readonly logger: Logger,
  ) {}

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
    await this.call('GET', '/api/version', undefined, AbortSignal.timeout(2000));
  }

  /** One JSON answer (`stream: false`) from `path`. */
  async request<T>(path: string, body: unknown, signal: AbortSignal): Promise<T> {
    const response = await this.call('POST', path, body, signal);
    return (await response.json()) as T;
  }

  /**
   * Passes Ollama's answer through as it arrives (NDJSON chunks or one object): status, content
   * type and bytes unchanged, so the service adds no buffering. A failure after the first byte
   * ends the stream with Ollama's own error line.
   */
  async proxy(path: string, body: unknown, res: Response, signal: AbortSignal): Promise<void> {
    const upstream = await this.call('POST', path, body, signal);
    res.status(upstream.status);
    res.setHeader('Content-Type', upstream.headers.get('content-type') ?? 'application/x-ndjson');
    if (!upstream.body) return void res.end();
    res.flushHeaders();
    try {
      for await (const chunk of upstream.body as unknown as AsyncIterable<Uint8Array>) {
        if (!res.write(chunk)) await new Promise<void>((resolve) => res.once('drain', resolve));
      }
    } catch (error) {
      if (!signal.aborted) {
        this.logger.warn({ err: error, path }, 'Ollama stream broke off');
        res.write(`${JSON.stringify({ error: `the Ollama backend stopped answering: ${(error as Error).message}` })}\n`);
      }
    }
    res.end();
  }

  private async fetchTags(): Promise<ModelSummary[]> {
    const response = await this.call('GET', '/api/tags', undefined, AbortSignal.timeout(Math.min(this.options.timeoutMs, 10_000)));
    const body = (await response.json()) as { models?: OllamaTag[] };
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

  /** One call to Ollama: network failures, timeouts and error statuses become clear API errors. */
  private async call(method: 'GET' | 'POST', path: string, body: unknown, signal: AbortSignal): Promise<globalThis.Response> {
    let response: globalThis.Response;
    try {
      response = await fetch(new URL(path, this.options.baseUrl), {
        method,
        headers: body === undefined ? undefined : { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.any([signal, AbortSignal.timeout(this.options.timeoutMs)]),
      });
    } catch (error) {
      if (signal.aborted && signal.reason instanceof ApiError) throw signal.reason;
      const timedOut = (error as Error).name === 'TimeoutError';
      throw upstreamError('ollama', timedOut ? `Ollama did not answer within ${this.options.timeoutMs} ms` : `Ollama at ${this.options.baseUrl} cannot be reached`, {
        reason: timedOut ? 'timeout' : 'unreachable',
      });
    }
    if (response.ok) return response;
    const text = await response.text().catch(() => '');
    let message = text;
    try {
      message = (JSON.parse(text) as { error?: string }).error ?? text;
    } catch {
      // not JSON: keep the text
    }
    if (response.status === 404) throw notFound(`Ollama does not have it: ${message.slice(0, 500)}`, { dependency: 'ollama' });
    if (response.status >= 400 && response.status < 500) {
      // Ollama refused the request itself (bad option, model that cannot do this): the caller's fault.
      throw new ApiError(response.status === 413 ? 413 : 400, 'validation_error', 'invalid_request', `Ollama refused the request: ${message.slice(0, 500)}`, { dependency: 'ollama', status: response.status });
    }
    throw upstreamError('ollama', `Ollama answered ${response.status}: ${message.slice(0, 500)}`, { status: response.status });
  }
}
