import {
  isSpanContextValid,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Context,
  type HrTime,
  type SpanContext,
  type SpanStatus,
} from '@opentelemetry/api';
import { resources, tracing } from '@opentelemetry/sdk-node';

/** What the SDK was started with, shared by the server spans: its sampler, its span processor, its resource. */
export interface SpanPipeline {
  sampler: tracing.Sampler;
  processor: tracing.SpanProcessor;
  resource: resources.Resource;
}

let pipeline: SpanPipeline | undefined;

/** Set by startTelemetry once the SDK runs; cleared when it stops. */
export function useSpanPipeline(next: SpanPipeline | undefined): void {
  pipeline = next;
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

const ids = new tracing.RandomIdGenerator();
const SCOPE = { name: '@platform/telemetry' };
const NO_ATTRIBUTES = {};
const NONE: never[] = [];
const UNSET: SpanStatus = { code: SpanStatusCode.UNSET };

/**
 * A request's SERVER span, made without the SDK's span object: the sampler decides first, and a
 * span it leaves out is only a span context (ids and the unsampled flag, which callees still
 * receive). A sampled one is timed and, once the response closes, handed to the SDK's span
 * processor as the finished span exporters read, batched with the SDK's own spans.
 */
export class ServerSpan implements tracing.ReadableSpan {
  readonly attributes: Record<string, string | number> = {};
  status: SpanStatus = UNSET;
  startTime!: HrTime;
  endTime!: HrTime;

  private constructor(
    public name: string,
    private readonly context: SpanContext,
    readonly parentSpanContext: SpanContext | undefined,
    readonly resource: resources.Resource,
    private readonly processor: tracing.SpanProcessor,
  ) {}

  /**
   * The span of a request arriving with `parent` (its extracted context), and the context to serve
   * it in. `span` is undefined when tracing does not run or the sampler left the request out.
   */
  static start(name: string, parent: Context): { active: Context; span?: ServerSpan } {
    if (!pipeline) return { active: parent };
    const parentSpan = trace.getSpanContext(parent);
    const remote = parentSpan && isSpanContextValid(parentSpan) ? parentSpan : undefined;
    const traceId = remote?.traceId ?? ids.generateTraceId();
    const decision = pipeline.sampler.shouldSample(parent, traceId, name, SpanKind.SERVER, NO_ATTRIBUTES, []);
    const sampled = decision.decision === tracing.SamplingDecision.RECORD_AND_SAMPLED;
    const context: SpanContext = {
      traceId,
      spanId: ids.generateSpanId(),
      traceFlags: sampled ? TraceFlags.SAMPLED : TraceFlags.NONE,
      traceState: decision.traceState ?? remote?.traceState,
    };
    const active = trace.setSpan(parent, trace.wrapSpanContext(context));
    if (!sampled) return { active };
    const span = new ServerSpan(name, context, remote, pipeline.resource, pipeline.processor);
    span.startTime = hrTime(performance.now());
    return { active, span };
  }

  spanContext(): SpanContext {
    return this.context;
  }

  // What every server span shares, on the prototype rather than copied into each span.
  get kind(): SpanKind {
    return SpanKind.SERVER;
  }
  get instrumentationScope() {
    return SCOPE;
  }
  get events(): never[] {
    return NONE;
  }
  get links(): never[] {
    return NONE;
  }
  get droppedAttributesCount(): number {
    return 0;
  }
  get droppedEventsCount(): number {
    return 0;
  }
  get droppedLinksCount(): number {
    return 0;
  }
  get ended(): boolean {
    return true;
  }

  get duration(): HrTime {
    const nanos = this.endTime[1] - this.startTime[1];
    return nanos < 0 ? [this.endTime[0] - this.startTime[0] - 1, nanos + 1e9] : [this.endTime[0] - this.startTime[0], nanos];
  }

  /** Ends the span: timed now, and queued for export. */
  end(): void {
    this.endTime = hrTime(performance.now());
    this.processor.onEnd(this as unknown as tracing.Span); // processors take a Span; exporters read only ReadableSpan
  }
}

/** performance.now() as OpenTelemetry's HrTime (seconds and nanoseconds since the epoch). */
function hrTime(now: number): HrTime {
  const epochMs = performance.timeOrigin + now;
  const seconds = Math.floor(epochMs / 1000);
  return [seconds, Math.floor((epochMs - seconds * 1000) * 1e6)];
}
