import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { NodeSDK, resources, tracing } from '@opentelemetry/sdk-node';
import { requestContextManager } from './request-context';
import { ServerSpanExporter } from './server-span-export';
import { samplingFromEnv, useSpanPipeline } from './server-spans';

/** How often spans leave (ms), and the most one export carries: the defaults of OTEL_BSP_*. */
const SCHEDULE_DELAY_MS = 2000;
const MAX_EXPORT_BATCH = 4096;

let sdk: NodeSDK | undefined;
let serverSpans: ServerSpanExporter | undefined;

/**
 * Starts the OpenTelemetry SDK before the app loads, exporting spans over OTLP/HTTP (protobuf, or
 * JSON when OTEL_EXPORTER_OTLP_PROTOCOL=http/json) to the platform's own tracing service. Tracing
 * that fails to start leaves the service running.
 */
export function startTelemetry(serviceName: string): void {
  if (sdk || process.env.OTEL_SDK_DISABLED === 'true') return;
  // The platform's tracing service takes spans only: no metric or log export unless asked for.
  process.env.OTEL_METRICS_EXPORTER ??= 'none';
  process.env.OTEL_LOGS_EXPORTER ??= 'none';
  const endpoint = (process.env.OTEL_EXPORTER_OTLP_ENDPOINT ?? 'http://127.0.0.1:6006').replace(/\/$/, '');
  // The tracing service takes a static ingestion key. OTEL_EXPORTER_OTLP_HEADERS (read by the
  // exporter itself) may carry it; TRACING_INGEST_KEY is the shorter way `npm run up` and the chart use.
  const ingestKey = process.env.TRACING_INGEST_KEY;
  const headers =
    ingestKey && !/(^|,)\s*(x-api-key|authorization)\s*=/i.test(process.env.OTEL_EXPORTER_OTLP_HEADERS ?? '') ? { 'x-api-key': ingestKey } : undefined;
  // OTLP's default encoding, protobuf, costs the exporting service less CPU per span than JSON;
  // http/json stays available (OTEL_EXPORTER_OTLP_PROTOCOL, as the specification names it).
  const protocol = process.env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? process.env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf';
  const Exporter = protocol === 'http/json' ? JsonExporter : ProtobufExporter;
  // Spans leave every 2 s (OTel's default: 5 s), in batches of up to 4,096 (OTel's: 512). Each
  // export costs the service CPU well beyond its bytes: at 1,500 req/s, batches of 512 every 0.34 s
  // cost auth 2 to 13 % more CPU per request than batches of 3,000 every 2 s (npm run bench:auth).
  // The SDK's processor takes the same settings; its queue must hold a whole batch.
  process.env.OTEL_BSP_SCHEDULE_DELAY ??= String(SCHEDULE_DELAY_MS);
  process.env.OTEL_BSP_MAX_QUEUE_SIZE ??= '8192';
  process.env.OTEL_BSP_MAX_EXPORT_BATCH_SIZE ??= String(Math.min(MAX_EXPORT_BATCH, Number(process.env.OTEL_BSP_MAX_QUEUE_SIZE) || 8192));
  try {
    // The sampler and resource are made here so that the server spans of requestContext share them
    // with the SDK's own spans; both kinds go to the same endpoint, in batches of their own.
    const { sampler, sampleNewTrace } = samplingFromEnv();
    const url = `${endpoint}/v1/traces`;
    const resource = resources
      .defaultResource()
      .merge(resources.detectResources({ detectors: [resources.envDetector, resources.processDetector, resources.hostDetector] }))
      .merge(resources.resourceFromAttributes({ 'service.name': process.env.OTEL_SERVICE_NAME ?? serviceName }));
    sdk = new NodeSDK({
      resource,
      autoDetectResources: false,
      sampler,
      contextManager: requestContextManager(),
      spanProcessors: [new tracing.BatchSpanProcessor(new Exporter({ url, headers }))],
      // Outgoing node:http calls only: the spans of requests served come from requestContext,
      // at a fraction of the instrumentation's cost per request.
      instrumentations: [new HttpInstrumentation({ disableIncomingRequestInstrumentation: true })],
    });
    serverSpans = new ServerSpanExporter({
      url,
      headers,
      protocol: protocol === 'http/json' ? 'http/json' : 'http/protobuf',
      resource,
      scopeName: '@platform/telemetry',
      scheduleDelayMs: Number(process.env.OTEL_BSP_SCHEDULE_DELAY) || SCHEDULE_DELAY_MS,
      maxBatch: Number(process.env.OTEL_BSP_MAX_EXPORT_BATCH_SIZE) || MAX_EXPORT_BATCH,
    });
    sdk.start();
    const exporter = serverSpans;
    useSpanPipeline({ sampler, sampleNewTrace, record: (span) => exporter.record(span) });
  } catch (error) {
    console.error(JSON.stringify({ level: 'warn', msg: 'telemetry did not start', error: String(error) }));
  }
}

/** Flushes pending spans; called last on shutdown. */
export async function stopTelemetry(): Promise<void> {
  useSpanPipeline(undefined);
  // Both at once: with the collector down, each waits out its own export timeout.
  await Promise.all([serverSpans?.shutdown().catch(() => undefined), sdk?.shutdown().catch(() => undefined)]);
  serverSpans = undefined;
  sdk = undefined;
}
