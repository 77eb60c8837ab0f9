import {
  isSpanContextValid,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type AttributeValue,
  type Attributes,
  type Context,
  type Span,
  type SpanContext,
  type SpanStatus,
} from '@opentelemetry/api';
import { tracing } from '@opentelemetry/sdk-node';
import { randomFillSync } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { FinishedServerSpan } from './otlp-encoding';

/** What the server spans are made with: the SDK's sampler, and where finished spans go. */
export interface SpanPipeline {
  sampler: tracing.Sampler;
  record(span: FinishedServerSpan): void;
}

let pipeline: SpanPipeline | undefined;
/**
 * The W3C propagators' headers (trace context and baggage, the default): a request carrying none
 * of them starts a new trace without asking the propagator. Any other propagator is always asked,
 * since its fields() names only the headers it writes (B3's is `b3`, yet it reads `x-b3-*` too).
 */
const W3C_FIELDS = new Set(['traceparent', 'tracestate', 'baggage']);
let w3cFields: string[] | undefined;

/** Set by startTelemetry once the SDK runs; cleared when it stops. */
export function useSpanPipeline(next: SpanPipeline | undefined): void {
  pipeline = next;
  const fields = propagation.fields().map((field) => field.toLowerCase());
  w3cFields = fields.every((field) => W3C_FIELDS.has(field)) ? fields : undefined;
}

/** Whether a pipeline is set: tracing runs in this process. */
export function spanPipelineInUse(): boolean {
  return pipeline !== undefined;
}

/** The sampler OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG name, as the SDK reads them (default: parentbased_always_on). */
export function samplerFromEnv(env: NodeJS.ProcessEnv = process.env): tracing.Sampler {
  const arg = Number(env.OTEL_TRACES_SAMPLER_ARG);
  const ratio = () => new tracing.TraceIdRatioBasedSampler(env.OTEL_TRACES_SAMPLER_ARG && arg >= 0 && arg <= 1 ? arg : 1);
  switch (env.OTEL_TRACES_SAMPLER) {
    case 'always_on':
      return new tracing.AlwaysOnSampler();
    case 'always_off':
      return new tracing.AlwaysOffSampler();
    case 'parentbased_always_off':
      return new tracing.ParentBasedSampler({ root: new tracing.AlwaysOffSampler() });
    case 'traceidratio':
      return ratio();
    case 'parentbased_traceidratio':
      return new tracing.ParentBasedSampler({ root: ratio() });
    default:
      return new tracing.ParentBasedSampler({ root: new tracing.AlwaysOnSampler() });
  }
}

/** Random ids from a pool refilled from the system's CSPRNG, one call per few hundred spans. */
const idPool = Buffer.allocUnsafe(16 * 1024);
let idOffset = idPool.length;
function randomHex(bytes: number): string {
  if (idOffset + bytes > idPool.length) {
    randomFillSync(idPool);
    idOffset = 0;
  }
  idOffset += bytes;
  return idPool.toString('hex', idOffset - bytes, idOffset);
}

const NO_ATTRIBUTES = {};
/** performance.timeOrigin, read once: each read is a call into the runtime. */
const TIME_ORIGIN = performance.timeOrigin;

/** A request's place in its trace: the context it is served in, and its span if the sampler kept it. */
export interface ServedRequestTrace {
  /** The caller's context (a new trace: the root context). */
  parent: Context;
  /** The request's own span context, which its outgoing calls continue, sampled or not. */
  spanContext: SpanContext;
  span?: ServerSpan;
}

/**
 * A request's SERVER span, made without the SDK's span objects: the sampler decides first, and a
 * request it leaves out costs only its ids. A sampled one is timed, and once its response has
 * closed it goes to the pipeline (encoded for export there), batched apart from the SDK's spans.
 *
 * While the request is served it is the active span (`trace.getActiveSpan()`): a handler may set
 * attributes, the status or the name. The response's close ends it, so `end()` does nothing;
 * events, links and exceptions are not kept on it (a child span carries them).
 */
export class ServerSpan implements FinishedServerSpan, Span {
  route?: string;
  name?: string;
  attributes?: Attributes;
  readonly traceId: string;
  readonly spanId: string;
  traceState?: string;
  readonly startMs = TIME_ORIGIN + performance.now();
  endMs = 0;
  statusCode = 0;
  status: SpanStatusCode = SpanStatusCode.UNSET;
  statusMessage?: string;
  readonly path: string;
  private finished = false;

  private constructor(
    readonly method: string,
    url: string,
    private readonly context: SpanContext,
    readonly parentSpanId: string | undefined,
  ) {
    this.traceId = context.traceId;
    this.spanId = context.spanId;
    const query = url.indexOf('?');
    this.path = query < 0 ? url : url.slice(0, query);
  }

  /** The trace of a request arriving with `headers`; undefined when tracing does not run. */
  static start(method: string, url: string, headers: IncomingHttpHeaders): ServedRequestTrace | undefined {
    if (!pipeline) return undefined;
    const carried = w3cFields ? w3cFields.some((field) => headers[field] !== undefined) : true;
    const parent = carried ? propagation.extract(ROOT_CONTEXT, headers) : ROOT_CONTEXT;
    const parentSpan = parent === ROOT_CONTEXT ? undefined : trace.getSpanContext(parent);
    const remote = parentSpan && isSpanContextValid(parentSpan) ? parentSpan : undefined;
    // A new trace's two ids come from one draw (one native call).
    const ids = remote ? undefined : randomHex(24);
    const traceId = remote?.traceId ?? ids!.slice(0, 32);
    const decision = pipeline.sampler.shouldSample(parent, traceId, method, SpanKind.SERVER, NO_ATTRIBUTES, []);
    const sampled = decision.decision === tracing.SamplingDecision.RECORD_AND_SAMPLED;
    const spanContext: SpanContext = {
      traceId,
      spanId: ids ? ids.slice(32) : randomHex(8),
      traceFlags: sampled ? TraceFlags.SAMPLED : TraceFlags.NONE,
      traceState: decision.traceState ?? remote?.traceState,
    };
    if (!sampled) return { parent, spanContext };
    return { parent, spanContext, span: new ServerSpan(method, url, spanContext, remote?.spanId) };
  }

  /**
   * Ends the span as the response closed: its HTTP status, an error if 5xx or not completed (or if
   * the handler said so), and records it for export.
   */
  finish(statusCode: number, completed: boolean): void {
    this.finished = true;
    this.endMs = TIME_ORIGIN + performance.now();
    this.statusCode = statusCode;
    if (statusCode >= 500 || !completed) this.status = SpanStatusCode.ERROR;
    this.traceState = this.context.traceState?.serialize() || undefined;
    pipeline?.record(this);
  }

  // The OpenTelemetry Span a handler sees.
  spanContext(): SpanContext {
    return this.context;
  }
  setAttribute(key: string, value: AttributeValue): this {
    if (!this.finished) (this.attributes ??= {})[key] = value;
    return this;
  }
  setAttributes(attributes: Attributes): this {
    for (const [key, value] of Object.entries(attributes)) if (value !== undefined) this.setAttribute(key, value);
    return this;
  }
  setStatus(status: SpanStatus): this {
    if (!this.finished && this.status !== SpanStatusCode.OK) {
      this.status = status.code;
      this.statusMessage = status.code === SpanStatusCode.ERROR ? status.message : undefined;
    }
    return this;
  }
  updateName(name: string): this {
    if (!this.finished) this.name = name;
    return this;
  }
  isRecording(): boolean {
    return !this.finished;
  }
  addEvent(): this {
    return this;
  }
  addLink(): this {
    return this;
  }
  addLinks(): this {
    return this;
  }
  recordException(): void {}
  end(): void {}
}
