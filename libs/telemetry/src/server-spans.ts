import { isSpanContextValid, propagation, ROOT_CONTEXT, SpanKind, trace, TraceFlags, type Context, type SpanContext } from '@opentelemetry/api';
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
/** The headers the propagator reads: a request with none of them starts a new trace. */
let propagationFields: string[] = [];

/** Set by startTelemetry once the SDK runs; cleared when it stops. */
export function useSpanPipeline(next: SpanPipeline | undefined): void {
  pipeline = next;
  propagationFields = next ? propagation.fields().map((field) => field.toLowerCase()) : [];
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
  context: SpanContext;
  span?: ServerSpan;
}

/**
 * A request's SERVER span, made without the SDK's span objects: the sampler decides first, and a
 * request it leaves out costs only its ids. A sampled one is timed, and once its response has
 * closed it goes to the pipeline (encoded for export there), batched apart from the SDK's spans.
 */
export class ServerSpan implements FinishedServerSpan {
  route?: string;
  readonly traceId: string;
  readonly spanId: string;
  traceState?: string;
  readonly startMs = TIME_ORIGIN + performance.now();
  endMs = 0;
  statusCode = 0;
  error = false;
  readonly path: string;

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
    // The propagator is asked only when a trace context came with the request.
    const parent = propagationFields.some((field) => headers[field] !== undefined) ? propagation.extract(ROOT_CONTEXT, headers) : ROOT_CONTEXT;
    const parentSpan = parent === ROOT_CONTEXT ? undefined : trace.getSpanContext(parent);
    const remote = parentSpan && isSpanContextValid(parentSpan) ? parentSpan : undefined;
    // A new trace's two ids come from one draw (one native call).
    const ids = remote ? undefined : randomHex(24);
    const traceId = remote?.traceId ?? ids!.slice(0, 32);
    const decision = pipeline.sampler.shouldSample(parent, traceId, method, SpanKind.SERVER, NO_ATTRIBUTES, []);
    const sampled = decision.decision === tracing.SamplingDecision.RECORD_AND_SAMPLED;
    const context: SpanContext = {
      traceId,
      spanId: ids ? ids.slice(32) : randomHex(8),
      traceFlags: sampled ? TraceFlags.SAMPLED : TraceFlags.NONE,
      traceState: decision.traceState ?? remote?.traceState,
    };
    if (!sampled) return { parent, context };
    return { parent, context, span: new ServerSpan(method, url, context, remote?.spanId) };
  }

  /** Ends the span with the response's status (an error if 5xx or not completed), and records it for export. */
  end(statusCode: number, completed: boolean): void {
    this.endMs = TIME_ORIGIN + performance.now();
    this.statusCode = statusCode;
    this.error = statusCode >= 500 || !completed;
    this.traceState = this.context.traceState?.serialize() || undefined;
    pipeline?.record(this);
  }
}
