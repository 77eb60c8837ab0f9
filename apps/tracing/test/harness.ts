import { startService, type StartedService } from '@platform/service-kit';
import { TestIssuer, testDatabaseUrl, testRedisUrl, uniqueName } from '@platform/testing';
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { ExportTraceServiceRequest } from '../src/ingest/otlp.codec';
import { tracingService } from '../src/service';

/** The user a test acts as: what one call creates, the next reads (datasets, evaluations and projections have owners). */
export const TEST_USER = 'tracing-tester';

export const INGEST_KEY = `ingest-${randomBytes(12).toString('hex')}`;

export interface Harness {
  svc: StartedService<unknown, unknown>;
  issuer: TestIssuer;
  url: string;
  /** The OTLP/gRPC port (a free one). */
  grpcPort: number;
  bearer: (permissions: string[]) => string;
  stop: () => Promise<void>;
}

export async function startTracing(env: Record<string, string> = {}): Promise<Harness> {
  const issuer = await new TestIssuer().start();
  const svc = await startService(tracingService, {
    env: {
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      DATABASE_URL: testDatabaseUrl,
      REDIS_URL: testRedisUrl,
      TRACING_INGEST_KEYS: `${INGEST_KEY},second-key`,
      TRACING_FLUSH_MS: '20',
      TRACING_GRPC_PORT: '0',
      // No scheduled retention: its first run starts at once, in whichever test process takes it,
      // and would race the retention tests' own settings and counts.
      TRACING_RETENTION_INTERVAL_MS: '0',
      // Every test process runs the same queue workers: they must agree on these.
      TRACING_EVAL_ALLOW_PRIVATE_TARGETS: 'true',
      TRACING_EVAL_ATTEMPTS: '2',
      TRACING_EVAL_BACKOFF_MS: '50',
      ...env,
    },
    verifier: issuer.verifier(),
  });
  return {
    svc: svc as unknown as StartedService<unknown, unknown>,
    issuer,
    url: svc.url,
    grpcPort: (svc.parts as { grpc?: { port: number } }).grpc?.port ?? 0,
    bearer: (permissions) => issuer.bearer(permissions, { sub: TEST_USER }),
    stop: async () => {
      await svc.stop();
      await issuer.stop();
    },
  };
}

export const hex = (bytes: number) => randomBytes(bytes).toString('hex');
export const nowNano = () => BigInt(Date.now()) * 1_000_000n;

export interface SpanSpec {
  traceId?: string;
  spanId?: string;
  parentSpanId?: string;
  name?: string;
  kind?: number;
  status?: { code: number; message?: string };
  startNano?: bigint;
  durationNano?: bigint;
  attributes?: Record<string, string | number | boolean | number[]>;
}

function anyValue(value: string | number | boolean | number[]): Record<string, unknown> {
  if (typeof value === 'string') return { stringValue: value };
  if (typeof value === 'boolean') return { boolValue: value };
  if (Array.isArray(value)) return { arrayValue: { values: value.map((item) => ({ doubleValue: item })) } };
  return Number.isInteger(value) ? { intValue: String(value) } : { doubleValue: value };
}

/** An ExportTraceServiceRequest in the OTLP/JSON mapping (hex ids, int64 as strings). */
export function otlpJson(project: string, spans: SpanSpec[], resourceKey = 'openinference.project.name'): Record<string, unknown> {
  return {
    resourceSpans: [
      {
        resource: { attributes: [{ key: resourceKey, value: { stringValue: project } }] },
        scopeSpans: [
          {
            scope: { name: 'test-scope', version: '1.0.0' },
            spans: spans.map((span) => {
              const start = span.startNano ?? nowNano();
              return {
                traceId: span.traceId ?? hex(16),
                spanId: span.spanId ?? hex(8),
                ...(span.parentSpanId && { parentSpanId: span.parentSpanId }),
                name: span.name ?? 'op',
                kind: span.kind ?? 1,
                startTimeUnixNano: String(start),
                endTimeUnixNano: String(start + (span.durationNano ?? 5_000_000n)),
                attributes: Object.entries(span.attributes ?? {}).map(([key, value]) => ({ key, value: anyValue(value) })),
                ...(span.status && { status: span.status }),
              };
            }),
          },
        ],
      },
    ],
  };
}

/** The same request as protobuf bytes, encoded by protobufjs from the official definitions. */
export function otlpProtobuf(project: string, spans: SpanSpec[], resourceKey?: string): Buffer {
  const json = otlpJson(project, spans, resourceKey);
  const toBase64 = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(toBase64);
    if (typeof value !== 'object' || value === null) return value;
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [
        key,
        ['traceId', 'spanId', 'parentSpanId'].includes(key) && typeof item === 'string' ? Buffer.from(item, 'hex') : toBase64(item),
      ]),
    );
  };
  return Buffer.from(ExportTraceServiceRequest.encode(ExportTraceServiceRequest.fromObject(toBase64(json) as Record<string, unknown>)).finish());
}

export const gzip = (body: Buffer | string) => gzipSync(body);
export { uniqueName };
