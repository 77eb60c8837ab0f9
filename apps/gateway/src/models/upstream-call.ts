import http, { type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import https from 'node:https';
import { StringDecoder } from 'node:string_decoder';
import type { Upstream } from './upstreams';

const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 256 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 256 }),
};

/** An upstream that did not answer (refused, reset, silent past the timeout). */
export class UpstreamUnreachable extends Error {
  constructor(
    readonly reason: 'unreachable' | 'timeout',
    message: string,
  ) {
    super(message);
  }
}

/**
 * One call to an upstream over a kept-alive connection, resolved with its answer's head (the body
 * is read by the caller, as it arrives); `timeoutMs` of silence, before or during the answer, ends it.
 */
export function callUpstream(
  upstream: Upstream,
  method: 'GET' | 'POST',
  path: string,
  body: Buffer | undefined,
  headers: OutgoingHttpHeaders,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<IncomingMessage> {
  const url = new URL(`${upstream.baseUrl}${path}`);
  return new Promise((resolve, reject) => {
    const request = (url.protocol === 'https:' ? https.request : http.request)(
      url,
      {
        method,
        agent: agents[url.protocol as 'http:' | 'https:'],
        signal,
        headers: { ...headers, ...(body && { 'content-type': 'application/json', 'content-length': body.length }) },
      },
      resolve,
    );
    request.setTimeout(timeoutMs, () => request.destroy(new UpstreamUnreachable('timeout', `${upstream.name} was silent for ${timeoutMs} ms`)));
    request.on('error', (error) =>
      reject(error instanceof UpstreamUnreachable || signal.aborted ? error : new UpstreamUnreachable('unreachable', `${upstream.name} cannot be reached: ${error.message}`)),
    );
    request.end(body);
  });
}

export function readBody(response: IncomingMessage, max = 1024 * 1024): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    response.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= max) chunks.push(chunk);
    });
    response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    response.on('error', reject);
    response.on('aborted', () => reject(new Error('the answer broke off')));
  });
}

/** What an answer said of itself: the model that answered and the tokens it counted. */
export interface AnswerUsage {
  model?: string;
  promptTokens: number;
  completionTokens: number;
}

interface UsageFields {
  model?: string;
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
}

/**
 * Reads the usage of an answer passing through, without holding it back: the last `usage` of a
 * stream's events (the chunk `stream_options.include_usage` adds), or the whole body's.
 */
export class UsageTap {
  private static readonly MAX = 16 * 1024 * 1024;
  private readonly decoder = new StringDecoder('utf8');
  private text = '';
  private found: AnswerUsage | undefined;
  private model?: string;

  constructor(private readonly streamed: boolean) {}

  push(chunk: Buffer): void {
    this.text += this.decoder.write(chunk);
    if (!this.streamed) {
      if (this.text.length > UsageTap.MAX) this.text = '';
      return;
    }
    let end = this.text.indexOf('\n\n');
    while (end >= 0) {
      this.event(this.text.slice(0, end));
      this.text = this.text.slice(end + 2);
      end = this.text.indexOf('\n\n');
    }
  }

  usage(): AnswerUsage | undefined {
    this.text += this.decoder.end();
    if (this.streamed) {
      if (this.text.trim()) this.event(this.text);
    } else {
      this.read(this.text);
    }
    return this.found ?? (this.model ? { model: this.model, promptTokens: 0, completionTokens: 0 } : undefined);
  }

  private event(block: string): void {
    for (const line of block.split('\n')) {
      if (line.startsWith('data:')) {
        const data = line.slice(5).trim();
        if (data && data !== '[DONE]') this.read(data);
      }
    }
  }

  private read(json: string): void {
    let fields: UsageFields;
    try {
      fields = JSON.parse(json) as UsageFields;
    } catch {
      return;
    }
    this.model ??= fields.model;
    if (fields.usage) {
      this.found = { model: fields.model ?? this.model, promptTokens: fields.usage.prompt_tokens ?? 0, completionTokens: fields.usage.completion_tokens ?? 0 };
    }
  }
}

/** A server-sent event stream cut into whole events (each with its blank line), as they complete. */
export class SseEvents {
  private readonly decoder = new StringDecoder('utf8');
  private text = '';

  push(chunk: Buffer): string[] {
    this.text += this.decoder.write(chunk);
    const events: string[] = [];
    let end = this.text.indexOf('\n\n');
    while (end >= 0) {
      events.push(this.text.slice(0, end + 2));
      this.text = this.text.slice(end + 2);
      end = this.text.indexOf('\n\n');
    }
    return events;
  }

  /** What is left unfinished at the end of the stream. */
  rest(): string {
    const rest = this.text + this.decoder.end();
    this.text = '';
    return rest;
  }

  /** Whether an event is the chunk of `stream_options.include_usage`: no choices, only the usage. */
  static usageOnly(event: string): boolean {
    if (!event.startsWith('data: {') || !event.includes('"usage"')) return false;
    try {
      const chunk = JSON.parse(event.slice(6)) as { choices?: unknown[]; usage?: unknown };
      return Array.isArray(chunk.choices) && chunk.choices.length === 0 && chunk.usage !== null && chunk.usage !== undefined;
    } catch {
      return false;
    }
  }
}
