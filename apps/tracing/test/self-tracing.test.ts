import { eventually, spawnService, type ServiceProcess } from '@platform/testing';
import request from 'supertest';
import { hex, INGEST_KEY, startTracing, type Harness } from './harness';

/**
 * The platform traces itself: `auth`, run as its own process with the platform's telemetry
 * (libs/telemetry) pointed at this tracing service and given an ingestion key, exports the span of
 * a request it served; the span is found through GET /api/traces/{id}.
 */
describe('the platform tracing itself', () => {
  let h: Harness;
  let auth: ServiceProcess | undefined;
  beforeAll(async () => {
    h = await startTracing();
    auth = await spawnService('auth', {
      env: {
        OTEL_SDK_DISABLED: 'false',
        OTEL_EXPORTER_OTLP_ENDPOINT: h.url,
        TRACING_INGEST_KEY: INGEST_KEY,
        OTEL_BSP_SCHEDULE_DELAY: '100',
        LOG_LEVEL: 'info',
      },
      timeoutMs: 90_000,
    });
  }, 120_000);
  afterAll(async () => {
    await auth?.stop();
    await h.stop();
  });

  it("finds auth's span of a request, by the trace id the caller sent", async () => {
    const traceId = hex(16);
    const callerSpanId = hex(8);
    const res = await fetch(`${auth!.url}/.well-known/jwks.json`, { headers: { traceparent: `00-${traceId}-${callerSpanId}-01` } });
    expect(res.status).toBe(200);
    const trace = await eventually(async () => {
      const found = await request(h.url)
        .get(`/api/traces/${traceId}`)
        .set('Authorization', h.bearer(['traces:read']));
      return found.status === 200 ? found.body : undefined;
    }, 20_000);
    expect(trace.projects).toEqual(['auth']);
    const server = trace.spans.flatMap((node: { children: unknown[] }) => [node, ...node.children]).find((span: { kind: string }) => span.kind === 'SERVER');
    expect(server.resource.attributes['service.name']).toBe('auth');
    // The span as auth encoded it (OTLP protobuf) and this service decoded it.
    expect(server).toMatchObject({
      trace_id: traceId,
      parent_span_id: callerSpanId,
      name: 'GET /.well-known/jwks.json',
      status: { code: 'UNSET' },
      attributes: {
        'http.request.method': 'GET',
        'url.path': '/.well-known/jwks.json',
        'http.route': '/.well-known/jwks.json',
        'http.response.status_code': 200,
      },
    });
    expect(server.span_id).toMatch(/^[0-9a-f]{16}$/);
    expect(Date.parse(server.end_time) - Date.parse(server.start_time)).toBeGreaterThanOrEqual(0);
  });
});
