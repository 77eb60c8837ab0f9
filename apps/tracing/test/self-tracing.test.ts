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
    const res = await fetch(`${auth!.url}/.well-known/jwks.json`, { headers: { traceparent: `00-${traceId}-${hex(8)}-01` } });
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
    expect(server.attributes['http.route'] ?? server.attributes['url.path'] ?? server.attributes['http.target']).toBeDefined();
  });
});
