import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { protoPath as healthProtoPath } from 'grpc-health-check';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import { ExportTraceServiceResponse } from '../src/ingest/otlp.codec';
import { TRACE_SERVICE } from '../src/ingest/otlp.grpc';
import { hex, INGEST_KEY, otlpProtobuf, startTracing, uniqueName, type Harness } from './harness';

const READ = ['traces:read'];
const ROOT = path.join(__dirname, '../../..');
const EXPORT = `/${TRACE_SERVICE}/Export`;
const run = promisify(execFile);

interface Answer {
  error: grpc.ServiceError | null;
  response?: { partialSuccess?: { rejectedSpans?: number | string; errorMessage?: string } };
}

describe('OTLP/gRPC: TraceService/Export', () => {
  let h: Harness;
  let client: grpc.Client;
  beforeAll(async () => {
    h = await startTracing({ TRACING_MAX_BODY_MB: '1' });
    client = new grpc.Client(`127.0.0.1:${h.grpcPort}`, grpc.credentials.createInsecure(), { 'grpc.max_send_message_length': 8 * 1024 * 1024 });
  });
  afterAll(async () => {
    client?.close();
    await h?.stop();
  });

  /** Runs the real @opentelemetry/exporter-trace-otlp-grpc (gzip) in its own process; answers the trace id. */
  async function exportWith(metadata: Record<string, string>, project: string, childAttributes: Record<string, string | number> = {}): Promise<string> {
    const { stdout } = await run(process.execPath, [require.resolve('tsx/cli', { paths: [ROOT] }), path.join(__dirname, 'fixtures/export-spans.ts')], {
      cwd: ROOT,
      env: {
        ...process.env,
        EXPORT_URL: `http://127.0.0.1:${h.grpcPort}`,
        EXPORTER: 'grpc',
        EXPORT_HEADERS: JSON.stringify(metadata),
        EXPORT_PROJECT: project,
        EXPORT_CHILD_ATTRIBUTES: JSON.stringify(childAttributes),
      },
      timeout: 30_000,
    });
    return stdout.trim();
  }

  /** One raw Export call: the bytes as given, the metadata as given. */
  function exportRaw(body: Buffer, metadata: Record<string, string> = {}): Promise<Answer> {
    const md = new grpc.Metadata();
    for (const [key, value] of Object.entries(metadata)) md.set(key, value);
    return new Promise((resolve) =>
      client.makeUnaryRequest(
        EXPORT,
        (message: Buffer) => message,
        (message: Buffer) => ExportTraceServiceResponse.toObject(ExportTraceServiceResponse.decode(message), { longs: Number }) as Answer['response'],
        body,
        md,
        (error, response) => resolve({ error: error ?? null, response }),
      ),
    );
  }

  it('takes gzip-compressed spans from the OpenTelemetry gRPC exporter with an ingestion key; they read back over HTTP', async () => {
    const project = uniqueName('grpc-sdk');
    const traceId = await exportWith({ 'x-api-key': INGEST_KEY }, project);
    const res = await request(h.url).get(`/api/traces/${traceId}`).set('Authorization', h.bearer(READ));
    expect(res.status).toBe(200);
    expect(res.body.span_count).toBe(2);
    expect(res.body.projects).toEqual([project]);
    expect(res.body.root_span.name).toBe('parent');
    expect(res.body.spans[0].children[0]).toMatchObject({
      name: 'child',
      status: { code: 'ERROR', message: 'boom' },
      attributes: { 'llm.token_count.total': 42, 'input.value': 'hello' },
      scope: { name: 'ingest-test', version: '2.0.0' },
    });
  });

  it('takes a platform token with traces:write as authorization metadata', async () => {
    const project = uniqueName('grpc-token');
    const traceId = await exportWith({ authorization: h.bearer(['traces:write']) }, project);
    const res = await request(h.url).get(`/api/traces/${traceId}`).set('Authorization', h.bearer(READ));
    expect(res.status).toBe(200);
    expect(res.body.projects).toEqual([project]);
  });

  it('the exporter reports the failure when it sends no credentials', async () => {
    await expect(exportWith({}, uniqueName('grpc-anon'))).rejects.toThrow(/UNAUTHENTICATED|Unauthenticated|16/);
  });

  it('answers UNAUTHENTICATED with no, malformed or unknown credentials, PERMISSION_DENIED without traces:write', async () => {
    const body = otlpProtobuf(uniqueName('grpc-auth'), [{}]);
    expect((await exportRaw(body)).error?.code).toBe(grpc.status.UNAUTHENTICATED);
    expect((await exportRaw(body, { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` })).error?.code).toBe(grpc.status.UNAUTHENTICATED);
    expect((await exportRaw(body, { authorization: 'Bearer not-a-key' })).error?.code).toBe(grpc.status.UNAUTHENTICATED);
    expect((await exportRaw(body, { 'x-api-key': 'wrong-key' })).error?.code).toBe(grpc.status.UNAUTHENTICATED);
    expect((await exportRaw(body, { authorization: 'Bearer a.b.c' })).error?.code).toBe(grpc.status.UNAUTHENTICATED);
    const denied = await exportRaw(body, { authorization: h.bearer(['traces:read']) });
    expect(denied.error?.code).toBe(grpc.status.PERMISSION_DENIED);
    expect(denied.error?.details).toMatch(/traces:write/);
  });

  it('answers INVALID_ARGUMENT for bytes that are not an ExportTraceServiceRequest', async () => {
    const answer = await exportRaw(Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01]), { 'x-api-key': INGEST_KEY });
    expect(answer.error?.code).toBe(grpc.status.INVALID_ARGUMENT);
  });

  it('answers RESOURCE_EXHAUSTED for a message over TRACING_MAX_BODY_MB', async () => {
    const big = otlpProtobuf(uniqueName('grpc-big'), [{ attributes: { blob: 'x'.repeat(1024 * 1024 + 10) } }]);
    const answer = await exportRaw(big, { 'x-api-key': INGEST_KEY });
    expect(answer.error?.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
  });

  it('inflates gzip messages, and refuses one over the limit once inflated (RESOURCE_EXHAUSTED)', async () => {
    const gzipClient = new grpc.Client(`127.0.0.1:${h.grpcPort}`, grpc.credentials.createInsecure(), {
      'grpc.default_compression_algorithm': grpc.compressionAlgorithms.gzip,
    });
    const call = (body: Buffer) =>
      new Promise<grpc.ServiceError | null>((resolve) => {
        const md = new grpc.Metadata();
        md.set('x-api-key', INGEST_KEY);
        gzipClient.makeUnaryRequest(
          EXPORT,
          (message: Buffer) => message,
          (message: Buffer) => message,
          body,
          md,
          (error) => resolve(error ?? null),
        );
      });
    try {
      const traceId = hex(16);
      expect(await call(otlpProtobuf(uniqueName('grpc-gzip'), [{ traceId, attributes: { text: 'y'.repeat(100_000) } }]))).toBeNull();
      expect((await request(h.url).get(`/api/traces/${traceId}`).set('Authorization', h.bearer(READ))).status).toBe(200);
      // A few KiB on the wire, over 1 MiB inflated.
      const bomb = await call(otlpProtobuf(uniqueName('grpc-bomb'), [{ attributes: { blob: 'z'.repeat(1024 * 1024 + 10) } }]));
      expect(bomb?.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    } finally {
      gzipClient.close();
    }
  });

  it('keeps the good spans and counts the rejected ones in partial_success', async () => {
    const project = uniqueName('grpc-partial');
    const traceId = hex(16);
    const body = otlpProtobuf(project, [
      { traceId, name: 'good' },
      { traceId, name: 'bad', durationNano: -1_000_000n },
    ]);
    const answer = await exportRaw(body, { 'x-api-key': INGEST_KEY });
    expect(answer.error).toBeNull();
    expect(Number(answer.response?.partialSuccess?.rejectedSpans)).toBe(1);
    expect(answer.response?.partialSuccess?.errorMessage).toMatch(/endTimeUnixNano/);
    const res = await request(h.url).get(`/api/traces/${traceId}`).set('Authorization', h.bearer(READ));
    expect(res.status).toBe(200);
    expect(res.body.span_count).toBe(1);
  });

  it('serves grpc.health.v1.Health: SERVING for the trace service', async () => {
    const definition = protoLoader.loadSync(healthProtoPath, { enums: String });
    const Health = (grpc.loadPackageDefinition(definition) as unknown as { grpc: { health: { v1: { Health: grpc.ServiceClientConstructor } } } }).grpc.health.v1
      .Health;
    const health = new Health(`127.0.0.1:${h.grpcPort}`, grpc.credentials.createInsecure());
    try {
      const answer = await new Promise<{ status: string }>((resolve, reject) =>
        health.Check({ service: TRACE_SERVICE }, (error: Error | null, value: { status: string }) => (error ? reject(error) : resolve(value))),
      );
      expect(answer.status).toBe('SERVING');
    } finally {
      health.close();
    }
    const res = await request(h.url).get('/health');
    expect(res.body.grpc).toEqual({ port: h.grpcPort, status: 'SERVING' });
  });
});

describe('OTLP/gRPC with the ingest buffer full', () => {
  it('answers UNAVAILABLE, which exporters retry, and stores nothing of the refused request', async () => {
    const h = await startTracing({ TRACING_BUFFER_SPANS: '1' });
    const client = new grpc.Client(`127.0.0.1:${h.grpcPort}`, grpc.credentials.createInsecure());
    try {
      const traceId = hex(16);
      const md = new grpc.Metadata();
      md.set('x-api-key', INGEST_KEY);
      const error = await new Promise<grpc.ServiceError | null>((resolve) =>
        client.makeUnaryRequest(
          EXPORT,
          (message: Buffer) => message,
          (message: Buffer) => message,
          otlpProtobuf(uniqueName('grpc-full'), [{ traceId }, { traceId }]),
          md,
          (failure) => resolve(failure ?? null),
        ),
      );
      expect(error?.code).toBe(grpc.status.UNAVAILABLE);
      expect(error?.details).toMatch(/buffer is full; retry later/);
      expect((await request(h.url).get(`/api/traces/${traceId}`).set('Authorization', h.bearer(READ))).status).toBe(404);
    } finally {
      client.close();
      await h.stop();
    }
  });
});

describe('OTLP/gRPC shutdown', () => {
  it('stops taking exports when the service stops', async () => {
    const h = await startTracing();
    const client = new grpc.Client(`127.0.0.1:${h.grpcPort}`, grpc.credentials.createInsecure());
    await h.stop();
    const code = await new Promise<number | undefined>((resolve) =>
      client.makeUnaryRequest(
        EXPORT,
        (message: Buffer) => message,
        (message: Buffer) => message,
        otlpProtobuf('after-stop', [{}]),
        new grpc.Metadata({ waitForReady: false }),
        { deadline: Date.now() + 5000 },
        (error) => resolve(error?.code),
      ),
    );
    client.close();
    expect(code).toBe(grpc.status.UNAVAILABLE);
  });
});
