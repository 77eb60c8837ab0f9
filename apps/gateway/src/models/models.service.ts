import { localModels, type Pricing } from '@platform/contracts';
import { ApiError } from '@platform/http';
import { currentRequestId, type Logger } from '@platform/telemetry';
import type { Response } from 'express';
import type { IncomingMessage } from 'node:http';
import { GenAiSpan, type GenAiOperation } from './genai-span';
import type { ModelAccessService } from './model-access.service';
import { callUpstream, readBody, SseEvents, UpstreamUnreachable, UsageTap, type AnswerUsage } from './upstream-call';
import type { ModelUpstreams, Upstream } from './upstreams';

/** Who calls the model route: the token's subject and the token itself (forwarded to local-models). */
export interface ModelCaller {
  sub: string;
  bearer: string;
}

export interface ModelRouteOptions {
  /** Longest silence of an upstream, before its answer or between streamed chunks. */
  timeoutMs: number;
  /** The caller's token as local-models gets it (delegated when the gateway has a key). */
  delegate: (bearer: string) => Promise<string>;
}

interface Failure {
  model: string;
  upstream: string;
  reason: string;
  status?: number;
  message: string;
}

type ModelRequest = Record<string, unknown> & { model: string; stream?: boolean | null; stream_options?: Record<string, unknown> | null };

/** A listing waits at most this long for an upstream, whatever a generation may take. */
const LISTING_TIMEOUT_MS = 10_000;

const messageOf = (text: string) => {
  try {
    const body = JSON.parse(text) as { error?: { message?: string } | string };
    return typeof body.error === 'string' ? body.error : (body.error?.message ?? text);
  } catch {
    return text;
  }
};

/**
 * The platform's model endpoint, as the LiteLLM proxy is one: a call is checked against the
 * caller's allow-list and budget, sent to the upstream serving its model (local-models unless one
 * of GATEWAY_MODEL_UPSTREAMS lists it), passed back unbuffered, counted from the answer's usage
 * and traced as a GenAI span. An upstream failing before it answered (refused, silent, 5xx) hands
 * the call to the model's fallbacks, in order.
 */
export class ModelRouteService {
  constructor(
    private readonly upstreams: ModelUpstreams,
    private readonly access: ModelAccessService,
    private readonly pricing: Pricing,
    private readonly options: ModelRouteOptions,
    private readonly logger: Logger,
  ) {}

  async forward(operation: GenAiOperation, path: string, body: ModelRequest, caller: ModelCaller, res: Response, signal: AbortSignal): Promise<void> {
    const requested = body.model;
    const policy = await this.access.authorize(caller.sub, requested);
    const chain = [...new Set([requested, ...this.access.fallbacksOf(policy, requested), ...this.upstreams.configuredFallbacks(requested)])].filter(
      (model, index) => index === 0 || this.access.allows(policy, model),
    );
    const streamed = body.stream === true;
    const span = new GenAiSpan(operation, requested, body);
    const failures: Failure[] = [];
    for (const [index, model] of chain.entries()) {
      const upstream = this.upstreams.for(model);
      span.attempt(upstream, model);
      // The gateway counts tokens from the usage chunk, so a stream always asks for it.
      const sent = { ...body, model, ...(streamed && operation === 'chat' && { stream_options: { ...body.stream_options, include_usage: true } }) };
      let response: IncomingMessage;
      try {
        // The request id goes along so local-models' usage record and logs name the same call.
        const requestId = currentRequestId();
        const headers = { ...span.headers(), ...(requestId && { 'x-request-id': requestId }), ...(await this.authorization(upstream, caller)) };
        response = await callUpstream(upstream, 'POST', path, Buffer.from(JSON.stringify(sent)), headers, signal, this.options.timeoutMs);
      } catch (error) {
        if (signal.aborted) return span.failed('aborted', 'the caller went away');
        if (!(error instanceof UpstreamUnreachable)) throw error;
        failures.push({ model, upstream: upstream.name, reason: error.reason, message: error.message });
        continue;
      }
      const status = response.statusCode ?? 502;
      if (status >= 500) {
        const text = await readBody(response, 8192).catch(() => '');
        failures.push({ model, upstream: upstream.name, reason: 'status', status, message: messageOf(text).slice(0, 300) });
        continue;
      }
      // From here the answer is the caller's, passed through as it arrives.
      if (index > 0) res.setHeader('X-Platform-Fallback', model);
      res.setHeader('X-Platform-Upstream', upstream.name);
      // The usage chunk the gateway asked for itself is not passed on: the caller gets what it asked for.
      const dropUsageChunk = streamed && operation === 'chat' && body.stream_options?.include_usage !== true;
      const usage = await this.pipe(response, res, status, signal, dropUsageChunk);
      if (status >= 300) return span.failed(String(status), `${upstream.name} refused the request`);
      if (usage) this.access.record(caller.sub, usage.promptTokens, usage.completionTokens);
      return span.answered(upstream, model, usage, this.pricing, index > 0);
    }
    const summary = failures.map((failure) => `${failure.model} at ${failure.upstream}: ${failure.message}`).join('; ');
    span.failed('upstream_error', summary);
    throw new ApiError(502, 'api_error', 'upstream_error', `No upstream answered for '${requested}': ${summary}`, { failures });
  }

  /** The models the caller may call, as every upstream lists them (an upstream that fails is left out). */
  async models(caller: ModelCaller): Promise<localModels.ModelList> {
    const policy = await this.access.policy(caller.sub);
    const lists = await Promise.all(
      this.upstreams.all.map(async (upstream) => {
        try {
          const headers = await this.authorization(upstream, caller);
          const response = await callUpstream(upstream, 'GET', '/models', undefined, headers, new AbortController().signal, Math.min(this.options.timeoutMs, LISTING_TIMEOUT_MS));
          const text = await readBody(response, 4 * 1024 * 1024);
          if ((response.statusCode ?? 500) >= 300) throw new Error(`${response.statusCode}: ${messageOf(text).slice(0, 200)}`);
          const { data = [] } = JSON.parse(text) as { data?: localModels.OpenAiModel[] };
          // Only the models routed to this upstream: a name another upstream claims is called there.
          return data.filter((model) => this.upstreams.for(model.id) === upstream);
        } catch (error) {
          this.logger.warn({ err: error, upstream: upstream.name }, 'model upstream not listed');
          return [];
        }
      }),
    );
    return { object: 'list', data: lists.flat().filter((model) => this.access.allows(policy, model.id)) };
  }

  private async authorization(upstream: Upstream, caller: ModelCaller): Promise<Record<string, string>> {
    if (upstream.forwardCaller) return { authorization: `Bearer ${await this.options.delegate(caller.bearer)}` };
    return upstream.apiKey ? { authorization: `Bearer ${upstream.apiKey}` } : {};
  }

  /** The answer to the caller chunk by chunk, its usage read on the way. */
  private async pipe(response: IncomingMessage, res: Response, status: number, signal: AbortSignal, dropUsageChunk: boolean): Promise<AnswerUsage | undefined> {
    const contentType = response.headers['content-type'] ?? 'application/json';
    const sse = contentType.startsWith('text/event-stream');
    res.status(status);
    res.setHeader('Content-Type', contentType);
    if (sse) res.setHeader('Cache-Control', 'no-cache');
    else if (response.headers['content-length']) res.setHeader('Content-Length', response.headers['content-length']);
    const tap = new UsageTap(sse);
    const events = sse && dropUsageChunk ? new SseEvents() : undefined;
    const write = async (chunk: Buffer | string) => {
      if (!res.write(chunk)) await new Promise((resolve) => (res.once('drain', resolve), res.once('close', resolve)));
    };
    try {
      for await (const chunk of response as AsyncIterable<Buffer>) {
        tap.push(chunk);
        if (!events) {
          await write(chunk);
          continue;
        }
        // Event by event, so the one usage-only chunk can be left out; each goes on as soon as it is whole.
        const passed = events.push(chunk).filter((event) => !SseEvents.usageOnly(event));
        if (passed.length > 0) await write(passed.join(''));
      }
      const rest = events?.rest();
      if (rest) await write(rest);
    } catch (error) {
      if (!signal.aborted) {
        this.logger.warn({ err: error }, 'model upstream broke off mid-answer');
        if (sse) res.write(`data: ${JSON.stringify(localModels.openAiErrorOf({ status: 502, code: 'upstream_error', message: 'The model upstream broke off mid-answer' }))}\n\n`);
      }
    }
    res.end();
    return tap.usage();
  }
}
