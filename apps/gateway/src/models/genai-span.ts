import { context, propagation, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import type { Pricing } from '@platform/contracts';
import type { OutgoingHttpHeaders } from 'node:http';
import type { AnswerUsage } from './upstream-call';
import type { Upstream } from './upstreams';

export type GenAiOperation = 'chat' | 'embeddings';

/**
 * One model call's span, by the OpenTelemetry GenAI semantic conventions: `chat <model>` (or
 * `embeddings <model>`), a client span under the request's, whose context the upstream receives.
 */
export class GenAiSpan {
  private readonly span: Span;

  constructor(operation: GenAiOperation, model: string, request: Record<string, unknown> = {}) {
    const number = (value: unknown) => (typeof value === 'number' ? value : undefined);
    const attributes = {
      'gen_ai.operation.name': operation,
      'gen_ai.request.model': model,
      'gen_ai.request.max_tokens': number(request.max_completion_tokens) ?? number(request.max_tokens),
      'gen_ai.request.temperature': number(request.temperature),
      'gen_ai.request.top_p': number(request.top_p),
      'gen_ai.request.seed': number(request.seed),
    };
    this.span = trace.getTracer('gateway').startSpan(
      `${operation} ${model}`,
      { kind: SpanKind.CLIENT, attributes: Object.fromEntries(Object.entries(attributes).filter(([, value]) => value !== undefined)) },
      context.active(),
    );
  }

  /** The trace context headers of a call made under this span. */
  headers(): OutgoingHttpHeaders {
    const carrier: Record<string, string> = {};
    propagation.inject(trace.setSpan(context.active(), this.span), carrier);
    return carrier;
  }

  /** The upstream tried (again on a fallback: the last one stays). */
  attempt(upstream: Upstream, model: string): void {
    const url = new URL(upstream.baseUrl);
    this.span.setAttributes({ 'gen_ai.system': upstream.system, 'server.address': url.hostname, 'server.port': Number(url.port) || (url.protocol === 'https:' ? 443 : 80) });
    this.span.setAttribute('platform.model.attempted', model);
  }

  answered(upstream: Upstream, model: string, usage: AnswerUsage | undefined, pricing: Pricing, fallback: boolean): void {
    const responseModel = usage?.model ?? model;
    this.span.setAttributes({
      'gen_ai.response.model': responseModel,
      'gen_ai.usage.input_tokens': usage?.promptTokens ?? 0,
      'gen_ai.usage.output_tokens': usage?.completionTokens ?? 0,
      'gen_ai.usage.cost': pricing.cost(responseModel, 'remote', usage?.promptTokens ?? 0, usage?.completionTokens ?? 0),
      'platform.model.upstream': upstream.name,
      'platform.model.fallback': fallback,
    });
    this.span.end();
  }

  failed(type: string, message: string): void {
    this.span.setAttribute('error.type', type);
    this.span.setStatus({ code: SpanStatusCode.ERROR, message });
    this.span.end();
  }
}
