import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { testDatabaseUrl } from '@platform/testing';
import { Client } from 'pg';
import request from 'supertest';
import { ExportTraceServiceResponse } from '../src/ingest/otlp.codec';
import { gzip, hex, INGEST_KEY, nowNano, otlpJson, otlpProtobuf, startTracing, uniqueName, type Harness } from './harness';

const READ = ['traces:read'];
const ROOT = path.join(__dirname, '../../..');
const run = promisify(execFile);

function protobufParser(res: request.Response, done: (error: Error | null, body: Buffer) => void) {
  const stream = res as unknown as NodeJS.ReadableStream;
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  stream.on('end', () => done(null, Buffer.concat(chunks)));
}

describe('POST /v1/traces', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startTracing({ TRACING_MAX_BODY_MB: '1' });
  });
  afterAll(() => h.stop());

  async function exportWith(exporter: 'proto' | 'http', headers: Record<string, string>, project: string): Promise<string> {
    const { stdout } = await run(process.execPath, [require.resolve('tsx/cli', { paths: [ROOT] }), path.join(__dirname, 'fixtures/export-spans.ts')], {
      cwd: ROOT,
      env: { ...process.env, EXPORT_URL: `${h.url}/v1/traces`, EXPORTER: exporter, EXPORT_HEADERS: JSON.stringify(headers), EXPORT_PROJECT: project },
      timeout: 30_000,
    });
    return stdout.trim();
  }

  it('takes spans from the OpenTelemetry protobuf exporter, gzip-compressed, with an ingestion key', async () => {
    const project = uniqueName('sdk-proto');
    const traceId = await exportWith('proto', { 'x-api-key': INGEST_KEY }, project);
    const res = await request(h.url).get(`/api/traces/${traceId}`).set('Authorization', h.bearer(READ));
    expect(res.status).toBe(200);
    expect(res.body.span_count).toBe(2);
    expect(res.body.projects).toEqual([project]);
    expect(res.body.root_span.name).toBe('parent');
    expect(res.body.spans).toHaveLength(1);
    const child = res.body.spans[0].children[0];
    expect(child).toMatchObject({
      name: 'child',
      kind: 'INTERNAL',
      status: { code: 'ERROR', message: 'boom' },
      attributes: { 'llm.token_count.total': 42, 'input.value': 'hello' },
      scope: { name: 'ingest-test', version: '2.0.0' },
    });
    expect(child.events[0]).toMatchObject({ name: 'thinking', attributes: { step: 1 } });
    expect(child.resource.attributes['service.name']).toBe('sdk-service');
    expect(child.start_time_unix_nano).toMatch(/^\d{19}$/);
  });

  it('takes spans from the OpenTelemetry JSON exporter, gzip-compressed, with a bearer ingestion key', async () => {
    const project = uniqueName('sdk-json');
    const traceId = await exportWith('http', { Authorization: `Bearer ${INGEST_KEY}` }, project);
    const res = await request(h.url).get(`/api/traces/${traceId}`).set('Authorization', h.bearer(READ));
    expect(res.status).toBe(200);
    expect(res.body.span_count).toBe(2);
    expect(res.body.spans[0].children[0].attributes['llm.token_count.total']).toBe(42);
  });

  it('decodes the proto3 JSON mapping: enums by name, int64 as strings, hex ids; keeps nanoseconds and typed values', async () => {
    const project = uniqueName('json');
    const traceId = hex(16);
    const body = otlpJson(project, [{ traceId, name: 'llm', attributes: { big: 1 } }]);
    const span = (body.resourceSpans as Array<{ scopeSpans: Array<{ spans: Array<Record<string, unknown>> }> }>)[0].scopeSpans[0].spans[0];
    span.kind = 'SPAN_KIND_CLIENT';
    span.status = { code: 'STATUS_CODE_OK' };
    span.startTimeUnixNano = '1700000000123456789';
    span.endTimeUnixNano = '1700000000223456789';
    span.attributes = [
      { key: 'big', value: { intValue: '9007199254740993' } },
      { key: 'ratio', value: { doubleValue: 0.5 } },
      { key: 'list', value: { arrayValue: { values: [{ stringValue: 'a' }, { boolValue: true }] } } },
    ];
    // 2023 is older than the retention period: use a start time inside it.
    const start = nowNano() - 1000n;
    span.startTimeUnixNano = String(start);
    span.endTimeUnixNano = String(start + 100_000_001n);
    const res = await request(h.url).post('/v1/traces').set('x-api-key', INGEST_KEY).set('Content-Type', 'application/json').send(JSON.stringify(body));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(res.body).toEqual({});
    const trace = await request(h.url).get(`/api/traces/${traceId}`).set('Authorization', h.bearer(READ));
    const stored = trace.body.root_span;
    expect(stored).toMatchObject({ kind: 'CLIENT', status: { code: 'OK' }, attributes: { big: '9007199254740993', ratio: 0.5, list: ['a', true] } });
    expect(stored.start_time_unix_nano).toBe(String(start));
    expect(stored.end_time_unix_nano).toBe(String(start + 100_000_001n));
    expect(stored.duration_ms).toBeCloseTo(100.000001, 6);
  });

  it('answers protobuf with a protobuf ExportTraceServiceResponse and counts invalid spans in partialSuccess', async () => {
    const project = uniqueName('partial');
    const good = hex(16);
    const body = otlpProtobuf(project, [
      { traceId: good, name: 'ok' },
      { traceId: '00'.repeat(16), name: 'bad id' },
      { traceId: hex(16), name: '' },
    ]);
    const res = await request(h.url)
      .post('/v1/traces')
      .set('x-api-key', INGEST_KEY)
      .set('Content-Type', 'application/x-protobuf')
      .send(body)
      .buffer(true)
      .parse(protobufParser);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/application\/x-protobuf/);
    const decoded = ExportTraceServiceResponse.toObject(ExportTraceServiceResponse.decode(res.body as Buffer), { longs: String }) as {
      partialSuccess: { rejectedSpans: string; errorMessage: string };
    };
    expect(decoded.partialSuccess.rejectedSpans).toBe('2');
    expect(decoded.partialSuccess.errorMessage).toMatch(/traceId/);
    expect((await request(h.url).get(`/api/traces/${good}`).set('Authorization', h.bearer(READ))).status).toBe(200);
    const page = await request(h.url).get(`/api/projects/${project}/spans`).set('Authorization', h.bearer(READ));
    expect(page.body.total).toBe(1);
  });

  it('answers JSON partial success in the JSON mapping', async () => {
    const project = uniqueName('partial-json');
    const body = otlpJson(project, [{ name: 'ok' }, { name: 'future', startNano: nowNano() + 10n * 86_400_000_000_000n }]);
    const res = await request(h.url).post('/v1/traces').set('x-api-key', INGEST_KEY).set('Content-Type', 'application/json').send(JSON.stringify(body));
    expect(res.status).toBe(200);
    expect(res.body.partialSuccess).toEqual({ rejectedSpans: '1', errorMessage: expect.stringMatching(/future/) });
  });

  it('puts spans in the project of openinference.project.name, else service.name, else default', async () => {
    const service = uniqueName('svc');
    const traceA = hex(16);
    await request(h.url)
      .post('/v1/traces')
      .set('x-api-key', INGEST_KEY)
      .set('Content-Type', 'application/json')
      .send(otlpJson(service, [{ traceId: traceA }], 'service.name'))
      .expect(200);
    const traceB = hex(16);
    await request(h.url)
      .post('/v1/traces')
      .set('x-api-key', INGEST_KEY)
      .set('Content-Type', 'application/json')
      .send(otlpJson('x', [{ traceId: traceB }], 'other.attribute'))
      .expect(200);
    expect((await request(h.url).get(`/api/traces/${traceA}`).set('Authorization', h.bearer(READ))).body.projects).toEqual([service]);
    expect((await request(h.url).get(`/api/traces/${traceB}`).set('Authorization', h.bearer(READ))).body.projects).toEqual(['default']);
  });

  it('keeps one copy of a span exported twice (exporter retries)', async () => {
    const project = uniqueName('dupe');
    const body = otlpProtobuf(project, [{ spanId: hex(8), traceId: hex(16) }]);
    for (let i = 0; i < 2; i++)
      await request(h.url).post('/v1/traces').set('x-api-key', INGEST_KEY).set('Content-Type', 'application/x-protobuf').send(body).expect(200);
    expect((await request(h.url).get(`/api/projects/${project}/spans`).set('Authorization', h.bearer(READ))).body.total).toBe(1);
  });

  it('refuses malformed protobuf and JSON with 400', async () => {
    const garbage = Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01]);
    const proto = await request(h.url).post('/v1/traces').set('x-api-key', INGEST_KEY).set('Content-Type', 'application/x-protobuf').send(garbage);
    expect(proto.status).toBe(400);
    expect(proto.body.error).toMatchObject({ type: 'validation_error', code: 'invalid_request' });
    const json = await request(h.url).post('/v1/traces').set('x-api-key', INGEST_KEY).set('Content-Type', 'application/json').send('{"resourceSpans": [');
    expect(json.status).toBe(400);
    const shape = await request(h.url)
      .post('/v1/traces')
      .set('x-api-key', INGEST_KEY)
      .set('Content-Type', 'application/json')
      .send('{"resourceSpans": "nope"}');
    expect(shape.status).toBe(400);
    const array = await request(h.url).post('/v1/traces').set('x-api-key', INGEST_KEY).set('Content-Type', 'application/json').send('[1,2]');
    expect(array.status).toBe(400);
    const badGzip = await fetch(`${h.url}/v1/traces`, {
      method: 'POST',
      headers: { 'x-api-key': INGEST_KEY, 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: 'not gzip',
    });
    expect(badGzip.status).toBe(400);
  });

  it('refuses other content types with 415', async () => {
    const res = await request(h.url).post('/v1/traces').set('x-api-key', INGEST_KEY).set('Content-Type', 'text/plain').send('hello');
    expect(res.status).toBe(415);
    expect(res.body.error.code).toBe('unsupported_media_type');
    const encoding = await request(h.url)
      .post('/v1/traces')
      .set('x-api-key', INGEST_KEY)
      .set('Content-Type', 'application/json')
      .set('Content-Encoding', 'br')
      .send('{}');
    expect(encoding.status).toBe(415);
  });

  it('refuses a body over TRACING_MAX_BODY_MB with 413, and a gzip bomb after inflating only that much', async () => {
    const big = Buffer.alloc(1024 * 1024 + 10, 0x20);
    const plain = await request(h.url).post('/v1/traces').set('x-api-key', INGEST_KEY).set('Content-Type', 'application/json').send(big);
    expect(plain.status).toBe(413);
    expect(plain.body.error.code).toBe('payload_too_large');
    const bomb = gzip(Buffer.alloc(64 * 1024 * 1024, 0x20));
    expect(bomb.length).toBeLessThan(200 * 1024);
    // fetch sends the bytes as they are (superagent re-encodes a body it is told is gzip).
    const res = await fetch(`${h.url}/v1/traces`, {
      method: 'POST',
      headers: { 'x-api-key': INGEST_KEY, 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: bomb,
    });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/after decompression/);
  });

  it('needs an ingestion key or a token with traces:write, and counts unauthenticated exports', async () => {
    const body = JSON.stringify(otlpJson(uniqueName('auth'), [{}]));
    const before = (await request(h.url).get('/api/stats').set('Authorization', h.bearer(READ))).body.ingest.unauthenticated_requests;
    const none = await request(h.url).post('/v1/traces').set('Content-Type', 'application/json').send(body);
    expect(none.status).toBe(401);
    expect(none.body.error.type).toBe('authentication_error');
    expect((await request(h.url).post('/v1/traces').set('x-api-key', 'wrong').set('Content-Type', 'application/json').send(body)).status).toBe(401);
    expect(
      (await request(h.url).post('/v1/traces').set('Authorization', 'Bearer wrong.token.value').set('Content-Type', 'application/json').send(body)).status,
    ).toBe(401);
    const readOnly = await request(h.url).post('/v1/traces').set('Authorization', h.bearer(READ)).set('Content-Type', 'application/json').send(body);
    expect(readOnly.status).toBe(403);
    expect(readOnly.body.error.details.required).toBe('traces:write');
    expect(
      (
        await request(h.url)
          .post('/v1/traces')
          .set('Authorization', h.bearer(['traces:write']))
          .set('Content-Type', 'application/json')
          .send(body)
      ).status,
    ).toBe(200);
    expect((await request(h.url).post('/v1/traces').set('Authorization', 'Bearer second-key').set('Content-Type', 'application/json').send(body)).status).toBe(
      200,
    );
    const after = (await request(h.url).get('/api/stats').set('Authorization', h.bearer(READ))).body.ingest.unauthenticated_requests;
    expect(after - before).toBe(3);
  });
});

describe('a full ingest buffer', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startTracing({ TRACING_BUFFER_SPANS: '5', TRACING_RETRY_AFTER_SECONDS: '7' });
  });
  afterAll(() => h.stop());

  it('answers 503 with Retry-After instead of growing, and takes what fits', async () => {
    const project = uniqueName('full');
    const tooMany = otlpJson(
      project,
      Array.from({ length: 6 }, () => ({})),
    );
    const res = await request(h.url).post('/v1/traces').set('x-api-key', INGEST_KEY).set('Content-Type', 'application/json').send(JSON.stringify(tooMany));
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('7');
    const fits = otlpJson(
      project,
      Array.from({ length: 5 }, () => ({})),
    );
    expect(
      (await request(h.url).post('/v1/traces').set('x-api-key', INGEST_KEY).set('Content-Type', 'application/json').send(JSON.stringify(fits))).status,
    ).toBe(200);
    expect((await request(h.url).get(`/api/projects/${project}/spans`).set('Authorization', h.bearer(READ))).body.total).toBe(5);
  });
});

describe('a database that does not answer', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startTracing({ DATABASE_STATEMENT_TIMEOUT_MS: '1000', TRACING_RETRY_AFTER_SECONDS: '3' });
  });
  afterAll(() => h.stop());

  it('answers 503 with Retry-After when the batch cannot be committed, stores nothing of it, and recovers', async () => {
    const project = uniqueName('db-down');
    const traceId = hex(16);
    const body = JSON.stringify(otlpJson(project, [{ traceId }]));
    const locker = new Client({ connectionString: testDatabaseUrl });
    await locker.connect();
    try {
      // Every write to spans now waits for this lock, longer than the statement timeout.
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE tracing.spans IN ACCESS EXCLUSIVE MODE');
      const res = await request(h.url).post('/v1/traces').set('x-api-key', INGEST_KEY).set('Content-Type', 'application/json').send(body);
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('3');
      expect(res.body.error).toMatchObject({ code: 'service_unavailable', details: { dependency: 'database' } });
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
    }
    expect((await request(h.url).get(`/api/traces/${traceId}`).set('Authorization', h.bearer(READ))).status).toBe(404);
    expect((await request(h.url).post('/v1/traces').set('x-api-key', INGEST_KEY).set('Content-Type', 'application/json').send(body)).status).toBe(200);
    expect((await request(h.url).get(`/api/traces/${traceId}`).set('Authorization', h.bearer(READ))).status).toBe(200);
  });
});
