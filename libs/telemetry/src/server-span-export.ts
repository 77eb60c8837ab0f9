// eslint-disable-next-line @typescript-eslint/triple-slash-reference -- an ambient module declaration is only referenced, not imported
/// <reference path="./otlp-exporter-base-node-http.d.ts" />
import { context, diag, ROOT_CONTEXT, type Attributes } from '@opentelemetry/api';
import { createOtlpHttpExportDelegate, convertLegacyHttpOptions } from '@opentelemetry/otlp-exporter-base/node-http';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { core, type resources } from '@opentelemetry/sdk-node';
import { JsonSpanEncoder, ProtobufSpanEncoder, type EncodedSpans, type FinishedServerSpan, type OtlpSpanEncoder } from './otlp-encoding';

const SUPPRESSED = core.suppressTracing(ROOT_CONTEXT);
/** The SDK transport's own default limit of concurrent exports. */
const MAX_EXPORTS_IN_FLIGHT = 30;

/** One export request: its encoded body and how many spans it holds. */
interface EncodedBatch {
  body: Uint8Array;
  spans: number;
}

export interface ServerSpanExportOptions {
  /** The OTLP/HTTP traces URL. */
  url: string;
  headers?: Record<string, string>;
  protocol: 'http/protobuf' | 'http/json';
  resource: resources.Resource;
  scopeName: string;
  /** How often spans waiting leave (OTEL_BSP_SCHEDULE_DELAY). */
  scheduleDelayMs: number;
  /** A batch this large leaves at once (OTEL_BSP_MAX_EXPORT_BATCH_SIZE). */
  maxBatch: number;
}

/**
 * Exports server spans as the SDK's batch processor does (a batch leaves when full or on a timer),
 * through the SDK's own OTLP/HTTP transport (its headers, timeout, retries and concurrency limit),
 * but from spans encoded as they end. A batch the transport cannot take (too many exports in
 * flight, the collector down after retries) is dropped, as the SDK drops it: tracing never holds
 * a service's memory hostage.
 */
export class ServerSpanExporter {
  private readonly encoder: OtlpSpanEncoder;
  private readonly delegate;
  private readonly timer: NodeJS.Timeout;
  /** The resource's attributes once detected (a host id read from disk, say): known before the first export. */
  private readonly resource: Promise<Attributes>;
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly options: ServerSpanExportOptions) {
    const json = options.protocol === 'http/json';
    this.encoder = json ? new JsonSpanEncoder(options.scopeName) : new ProtobufSpanEncoder(options.scopeName);
    const responses = json ? JsonTraceSerializer : ProtobufTraceSerializer;
    this.delegate = createOtlpHttpExportDelegate<EncodedBatch, unknown>(
      convertLegacyHttpOptions({ url: options.url, headers: options.headers }, 'TRACES', 'v1/traces', { 'Content-Type': this.encoder.contentType }),
      { serializeRequest: (batch) => batch.body, deserializeResponse: (data) => responses.deserializeResponse(data) },
      'otlp_http_span_exporter',
      { name: 'span', countItems: (batch) => batch.spans },
      undefined,
    );
    this.resource = Promise.resolve(options.resource.waitForAsyncAttributes?.()).then(() => options.resource.attributes);
    this.timer = setInterval(() => void this.flush(), options.scheduleDelayMs).unref();
  }

  record(span: FinishedServerSpan): void {
    this.encoder.add(span);
    if (this.encoder.spans >= this.options.maxBatch) void this.flush();
  }

  /** Sends the spans waiting as one batch, and waits for every export in flight. */
  flush(): Promise<void> {
    if (this.encoder.spans > 0) {
      const spans = this.encoder.spans;
      const batch = this.encoder.takeBatch();
      // Beyond what the transport would take at once, a batch is dropped rather than kept.
      if (this.pending.size < MAX_EXPORTS_IN_FLIGHT) {
        const exported = this.resource
          .then((resource) => this.send(resource, batch, spans))
          .catch((error: unknown) => diag.warn(`server spans not exported: ${String(error)}`))
          .finally(() => this.pending.delete(exported));
        this.pending.add(exported);
      } else diag.warn(`${spans} server spans dropped: ${MAX_EXPORTS_IN_FLIGHT} exports in flight`);
    }
    return Promise.all(this.pending).then(() => undefined);
  }

  async shutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
    await this.delegate.shutdown();
  }

  private send(resource: Attributes, batch: EncodedSpans, spans: number): Promise<void> {
    const body = this.encoder.request(resource, batch);
    // Not traced itself, as the SDK's processor does not trace its exports.
    return new Promise<void>((resolve) => context.with(SUPPRESSED, () => this.delegate.export({ body, spans }, () => resolve())));
  }
}
