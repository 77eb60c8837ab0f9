import { propagation, ROOT_CONTEXT, SpanStatusCode, trace, type TextMapPropagator } from '@opentelemetry/api';
import { core, tracing } from '@opentelemetry/sdk-node';
import express from 'express';
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { otlpProtobufAsJson } from './fixtures/otlp-protobuf';
import { ProtobufSpanEncoder, type FinishedServerSpan } from './otlp-encoding';
import { requestContext } from './request-context';
import { samplingFromEnv, ServerSpan, useSpanPipeline } from './server-spans';
import { hexOfWords } from './span-ids';

const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
const callerSpanId = '00f067aa0ba902b7';

/** A propagator like B3's multi-header form: it writes one header, yet reads others. */
const readsMoreThanItWrites: TextMapPropagator = {
  fields: () => ['x-written'],
  inject: () => undefined,
  extract: (context, carrier: Record<string, string>) =>
    carrier['x-trace'] ? trace.setSpanContext(context, { traceId: carrier['x-trace'], spanId: callerSpanId, traceFlags: 1, isRemote: true }) : context,
};

describe('server spans', () => {
  const recorded: FinishedServerSpan[] = [];
  beforeEach(() => {
    recorded.length = 0;
    useSpanPipeline({ ...samplingFromEnv({ OTEL_TRACES_SAMPLER: 'always_on' }), record: (span) => recorded.push({ ...span }) });
  });
  afterEach(() => {
    useSpanPipeline(undefined);
    propagation.disable();
  });

  it('asks a propagator other than the W3C ones for every request, since it may read headers it does not name', () => {
    propagation.setGlobalPropagator(readsMoreThanItWrites);
    useSpanPipeline({ ...samplingFromEnv({ OTEL_TRACES_SAMPLER: 'always_on' }), record: (span) => recorded.push(span) });
    const served = ServerSpan.start('GET', '/x', { 'x-trace': traceId })!;
    expect(served.spanContext().traceId).toBe(traceId);
    expect(served.parentSpanId).toBe(callerSpanId);
  });

  it('starts a new trace when only baggage came, and samples it by the id it carries', () => {
    propagation.setGlobalPropagator(new core.W3CBaggagePropagator());
    const sampling = samplingFromEnv({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.5' });
    useSpanPipeline({ ...sampling, record: (span) => recorded.push(span) });
    const spans = Array.from({ length: 200 }, () => ServerSpan.start('GET', '/x', { baggage: 'tenant=acme' })!);
    for (const span of spans) {
      expect(propagation.getBaggage(span.parent)?.getEntry('tenant')?.value).toBe('acme');
      expect(span.parentSpanId).toBeUndefined();
      const { traceId } = span.spanContext();
      expect(traceId).toMatch(/^[0-9a-f]{32}$/);
      const expected = sampling.sampler.shouldSample(ROOT_CONTEXT, traceId, 'GET', 1, {}, []).decision === tracing.SamplingDecision.RECORD_AND_SAMPLED;
      expect(span.isRecording()).toBe(expected);
      span.finish(200, true);
    }
    expect(recorded.length).toBeGreaterThan(50);
    expect(recorded.map((span) => hexOfWords(span.traceId0, span.traceId1, span.traceId2, span.traceId3))).toEqual(
      spans.filter((span) => span.spanContext().traceFlags === 1).map((span) => span.spanContext().traceId),
    );
  });

  it('gives each span its full route, for a router mounted at two paths too', async () => {
    const things = express.Router();
    things.get('/things/:id', (_req, res) => res.end());
    const app = express().use(requestContext).use('/a', things).use('/b', things);
    const paths = ['/a/things/1', '/b/things/2', '/b/things/3', '/a/things/4', '/a/things/5'];
    for (const path of paths) await request(app).get(path).expect(200);
    // A span is recorded as its response closes, which may follow the answer by a turn.
    for (let turn = 0; turn < 100 && recorded.length < paths.length; turn++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(recorded.map((span) => span.route)).toEqual(['/a/things/:id', '/b/things/:id', '/b/things/:id', '/a/things/:id', '/a/things/:id']);
  });

  it('starts a new trace, with fresh ids, when no trace context came', () => {
    const first = ServerSpan.start('GET', '/x?q=1', {})!;
    const second = ServerSpan.start('GET', '/x', {})!;
    expect(first.parent).toBe(ROOT_CONTEXT);
    expect(first.spanContext().traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(first.spanContext().spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(second.spanContext().traceId).not.toBe(first.spanContext().traceId);
    expect(first.path).toBe('/x');
  });

  it("is the handler's span while the request is served: attributes, status and name; the response's close ends it", () => {
    const span = ServerSpan.start('POST', '/files', {});
    span!.setAttribute('file.count', 3).setAttributes({ 'file.kind': 'image' }).setStatus({ code: SpanStatusCode.ERROR, message: 'bad file' });
    span!.updateName('upload');
    span!.end(); // ends nothing: the response does
    expect(span!.isRecording()).toBe(true);
    span!.route = '/files';
    span!.finish(201, true);
    expect(span!.isRecording()).toBe(false);
    span!.setAttribute('late', true);
    expect(recorded).toEqual([
      expect.objectContaining({
        name: 'upload',
        statusCode: 201,
        status: SpanStatusCode.ERROR,
        statusMessage: 'bad file',
        attributes: { 'file.count': 3, 'file.kind': 'image' },
      }),
    ]);
  });

  it('marks a 5xx or an unfinished response an error', () => {
    ServerSpan.start('GET', '/a', {})!.finish(503, true);
    ServerSpan.start('GET', '/b', {})!.finish(200, false);
    ServerSpan.start('GET', '/c', {})!.finish(404, true);
    expect(recorded.map((span) => span.status)).toEqual([SpanStatusCode.ERROR, SpanStatusCode.ERROR, SpanStatusCode.UNSET]);
  });

  it.each([
    ['parentbased_traceidratio', '0.1'],
    ['traceidratio', '0.5'],
    ['parentbased_always_on', ''],
    ['always_off', ''],
    ['parentbased_always_off', ''],
  ])('decides a new trace from its id as the %s sampler (%s) does', (name, arg) => {
    const { sampler, sampleNewTrace } = samplingFromEnv({ OTEL_TRACES_SAMPLER: name, OTEL_TRACES_SAMPLER_ARG: arg });
    const ids = randomBytes(16 * 5000);
    ids.fill(0, 0, 16); // an invalid, all-zero id among them
    let kept = 0;
    for (let at = 0; at < ids.length; at += 16) {
      const traceId = ids.toString('hex', at, at + 16);
      const expected = sampler.shouldSample(ROOT_CONTEXT, traceId, 'GET', 1, {}, []).decision === tracing.SamplingDecision.RECORD_AND_SAMPLED;
      expect(sampleNewTrace(ids, at)).toBe(expected);
      if (expected) kept++;
    }
    if (arg) expect(kept / 5000).toBeGreaterThan(Number(arg) * 0.8);
  });

  it("samples a new trace as the sampler would from the id it carries, and exports that id's bytes", () => {
    const sampling = samplingFromEnv({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.5' });
    useSpanPipeline({ ...sampling, record: (span) => recorded.push(span) });
    const spans = Array.from({ length: 400 }, () => ServerSpan.start('GET', '/x', {})!);
    for (const span of spans) {
      const { traceId, traceFlags } = span.spanContext();
      const expected = sampling.sampler.shouldSample(ROOT_CONTEXT, traceId, 'GET', 1, {}, []).decision === tracing.SamplingDecision.RECORD_AND_SAMPLED;
      expect(span.isRecording()).toBe(expected);
      expect(traceFlags).toBe(expected ? 1 : 0);
      span.finish(200, true);
    }
    expect(recorded.length).toBeGreaterThan(100);
    const encoder = new ProtobufSpanEncoder('test');
    for (const span of recorded) encoder.add(span);
    const exported = otlpProtobufAsJson(Buffer.from(encoder.request({}, encoder.takeBatch()))).resourceSpans[0].scopeSpans[0].spans;
    const sampledIds = spans.filter((span) => span.spanContext().traceFlags === 1).map((span) => span.spanContext());
    expect(exported.map((span: { traceId: string; spanId: string }) => ({ traceId: span.traceId, spanId: span.spanId }))).toEqual(
      sampledIds.map(({ traceId, spanId }) => ({ traceId, spanId })),
    );
  });

  it('makes no span when tracing does not run', () => {
    useSpanPipeline(undefined);
    expect(ServerSpan.start('GET', '/x', {})).toBeUndefined();
  });
});
