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
  type TraceState,
} from '@opentelemetry/api';
import { tracing } from '@opentelemetry/sdk-node';
import type { IncomingHttpHeaders } from 'node:http';
import { pathOf, type FinishedServerSpan } from './otlp-encoding';
import { drawIdWords, hexOfWords, idPool, idPoolBytes, wordsOfHex } from './span-ids';

/** What the server spans are made with: the SDK's sampler, and where finished spans go. */
export interface SpanPipeline {
  sampler: tracing.Sampler;
  /** The sampler's decision for a new trace, from its id's 16 bytes at `at` in `id`. */
  sampleNewTrace(id: Buffer, at: number): boolean;
  record(span: FinishedServerSpan): void;
}

let pipeline: SpanPipeline | undefined;
/**
 * Whether only the W3C propagators run (trace context and baggage, the default): a request carrying
 * none of their headers then starts a new trace without asking the propagator. Any other propagator
 * is always asked, since its fields() names only the headers it writes (B3's is `b3`, yet it reads
 * `x-b3-*` too).
 */
let onlyW3cPropagators = false;
const W3C_FIELDS = new Set(['traceparent', 'tracestate', 'baggage']);

/** Set by startTelemetry once the SDK runs; cleared when it stops. */
export function useSpanPipeline(next: SpanPipeline | undefined): void {
  pipeline = next;
  onlyW3cPropagators = propagation.fields().every((field) => W3C_FIELDS.has(field.toLowerCase()));
}

/** Whether a request carries any W3C propagation header (read by name: the cheapest lookup). */
function carriesW3cHeaders(headers: IncomingHttpHeaders): boolean {
  return headers.traceparent !== undefined || headers.tracestate !== undefined || headers.baggage !== undefined;
}

/** The pipeline set by startTelemetry, if any: a benchmark pauses tracing and resumes it with it. */
export function currentSpanPipeline(): SpanPipeline | undefined {
  return pipeline;
}

/** Whether a pipeline is set: tracing runs in this process. */
export function spanPipelineInUse(): boolean {
  return pipeline !== undefined;
}

/**
 * The sampler OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG name, as the SDK reads them (default:
 * parentbased_always_on), and its decision for a request that starts a new trace, made from the
 * trace id's bytes: the same decision as the sampler's, without its call, its trace id checks and
 * its hex parsing on every request.
 */
export function samplingFromEnv(env: NodeJS.ProcessEnv = process.env): Pick<SpanPipeline, 'sampler' | 'sampleNewTrace'> {
  const arg = Number(env.OTEL_TRACES_SAMPLER_ARG);
  const ratio = env.OTEL_TRACES_SAMPLER_ARG && arg >= 0 && arg <= 1 ? arg : 1;
  // As TraceIdRatioBasedSampler decides: the XOR of the id's four 32-bit words below ratio × 2^32-1.
  const bound = Math.floor(ratio * 0xffffffff);
  const byRatio = (id: Buffer, at: number) =>
    !isZero(id, at) && (id.readUInt32BE(at) ^ id.readUInt32BE(at + 4) ^ id.readUInt32BE(at + 8) ^ id.readUInt32BE(at + 12)) >>> 0 < bound;
  const always = () => true;
  const never = () => false;
  switch (env.OTEL_TRACES_SAMPLER) {
    case 'always_on':
      return { sampler: new tracing.AlwaysOnSampler(), sampleNewTrace: always };
    case 'always_off':
      return { sampler: new tracing.AlwaysOffSampler(), sampleNewTrace: never };
    case 'parentbased_always_off':
      return { sampler: new tracing.ParentBasedSampler({ root: new tracing.AlwaysOffSampler() }), sampleNewTrace: never };
    case 'traceidratio':
      return { sampler: new tracing.TraceIdRatioBasedSampler(ratio), sampleNewTrace: byRatio };
    case 'parentbased_traceidratio':
      return { sampler: new tracing.ParentBasedSampler({ root: new tracing.TraceIdRatioBasedSampler(ratio) }), sampleNewTrace: byRatio };
    default:
      return { sampler: new tracing.ParentBasedSampler({ root: new tracing.AlwaysOnSampler() }), sampleNewTrace: always };
  }
}

/** An all-zero trace id is invalid: no sampler keeps it. */
function isZero(id: Buffer, at: number): boolean {
  for (let i = at; i < at + 16; i++) if (id[i] !== 0) return false;
  return true;
}

const NO_ATTRIBUTES = {};
const RECORD_AND_SAMPLED = tracing.SamplingDecision.RECORD_AND_SAMPLED; // read once: the SDK exports it through a getter
/** performance.timeOrigin, read once: each read is a call into the runtime. */
const TIME_ORIGIN = performance.timeOrigin;

/**
 * A traced request's SERVER span, made without the SDK's span objects: one object per request,
 * whose ids stay words (span-ids.ts) until asked for. The sampler decides first; a request it
 * leaves out is only its context (not recording), which its outgoing calls continue. A sampled
 * one is timed, and once its response has closed it goes to the pipeline, which encodes and
 * exports it with others, apart from the SDK's spans.
 *
 * While the request is served it is the active span (`trace.getActiveSpan()`): a handler may set
 * attributes, the status or the name. The response's close ends it, so `end()` does nothing;
 * events, links and exceptions are not kept on it (a child span carries them).
 */
export class ServerSpan implements FinishedServerSpan, Span {
  route?: string;
  name?: string;
  attributes?: Attributes;
  /** The caller's trace state, serialized as the span ends. */
  traceState?: string;
  readonly startMs: number;
  endMs = 0;
  statusCode = 0;
  status: SpanStatusCode = SpanStatusCode.UNSET;
  statusMessage?: string;
  private recording: boolean;
  private context?: SpanContext;

  private constructor(
    /** The caller's context (a new trace: the root context). */
    readonly parent: Context,
    readonly traceId0: number,
    readonly traceId1: number,
    readonly traceId2: number,
    readonly traceId3: number,
    readonly spanId0: number,
    readonly spanId1: number,
    private readonly sampled: boolean,
    readonly method: string,
    readonly target: string,
    readonly parentSpanId?: string,
    private readonly incomingTraceState?: TraceState,
  ) {
    this.recording = sampled;
    this.startMs = sampled ? TIME_ORIGIN + performance.now() : 0;
  }

  /** The span of a request arriving with `headers`; undefined when tracing does not run. */
  static start(method: string, url: string, headers: IncomingHttpHeaders): ServerSpan | undefined {
    if (!pipeline) return undefined;
    const parent = !onlyW3cPropagators || carriesW3cHeaders(headers) ? propagation.extract(ROOT_CONTEXT, headers) : ROOT_CONTEXT;
    if (parent === ROOT_CONTEXT) {
      // A new trace: both ids from one draw, and the decision from the trace id's bytes.
      const at = drawIdWords(6);
      const sampled = pipeline.sampleNewTrace(idPoolBytes, 4 * at);
      return new ServerSpan(parent, idPool[at]!, idPool[at + 1]!, idPool[at + 2]!, idPool[at + 3]!, idPool[at + 4]!, idPool[at + 5]!, sampled, method, url);
    }
    return ServerSpan.continued(parent, method, url);
  }

  /** A request that came with a caller's context (or baggage): the sampler decides, with all it may look at. */
  private static continued(parent: Context, method: string, url: string): ServerSpan {
    const caller = trace.getSpanContext(parent);
    const remote = caller && isSpanContextValid(caller) ? caller : undefined;
    const at = drawIdWords(6);
    // The caller's trace id, else a new one from the pool; the sampler is given it in hex.
    const [t0, t1, t2, t3] = remote ? wordsOfHex(remote.traceId) : idPool.subarray(at, at + 4);
    const traceId = remote?.traceId ?? hexOfWords(t0!, t1!, t2!, t3!);
    const decision = pipeline!.sampler.shouldSample(parent, traceId, method, SpanKind.SERVER, NO_ATTRIBUTES, []);
    const sampled = decision.decision === RECORD_AND_SAMPLED;
    const state = decision.traceState ?? remote?.traceState;
    return new ServerSpan(parent, t0!, t1!, t2!, t3!, idPool[at + 4]!, idPool[at + 5]!, sampled, method, url, remote?.spanId, state);
  }

  /** The path served: the request target without its query. */
  get path(): string {
    return pathOf(this.target);
  }

  /**
   * Ends the span as the response closed: its HTTP status, an error if 5xx or not completed (or if
   * the handler said so), and records it for export.
   */
  finish(statusCode: number, completed: boolean): void {
    if (!this.recording) return;
    this.recording = false;
    this.endMs = TIME_ORIGIN + performance.now();
    this.statusCode = statusCode;
    if (statusCode >= 500 || !completed) this.status = SpanStatusCode.ERROR;
    this.traceState = this.incomingTraceState?.serialize() || undefined;
    pipeline?.record(this);
  }

  // The OpenTelemetry Span a handler sees.
  spanContext(): SpanContext {
    return (this.context ??= {
      traceId: hexOfWords(this.traceId0, this.traceId1, this.traceId2, this.traceId3),
      spanId: hexOfWords(this.spanId0, this.spanId1),
      traceFlags: this.sampled ? TraceFlags.SAMPLED : TraceFlags.NONE,
      traceState: this.incomingTraceState,
    });
  }
  setAttribute(key: string, value: AttributeValue): this {
    if (this.recording) (this.attributes ??= {})[key] = value;
    return this;
  }
  setAttributes(attributes: Attributes): this {
    for (const [key, value] of Object.entries(attributes)) if (value !== undefined) this.setAttribute(key, value);
    return this;
  }
  setStatus(status: SpanStatus): this {
    if (this.recording && this.status !== SpanStatusCode.OK) {
      this.status = status.code;
      this.statusMessage = status.code === SpanStatusCode.ERROR ? status.message : undefined;
    }
    return this;
  }
  updateName(name: string): this {
    if (this.recording) this.name = name;
    return this;
  }
  isRecording(): boolean {
    return this.recording;
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
