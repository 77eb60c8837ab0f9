import request from 'supertest';
import { hex, INGEST_KEY, nowNano, otlpJson, startTracing, uniqueName, type Harness, type SpanSpec } from './harness';

const READ = ['traces:read'];
const MS = 1_000_000n;

describe('queries', () => {
  let h: Harness;
  const project = uniqueName('query');
  const traceId = hex(16);
  const rootId = hex(8);
  const childId = hex(8);
  const orphanId = hex(8);
  const base = nowNano() - 60_000n * MS;
  const send = (spans: SpanSpec[], name = project) =>
    request(h.url)
      .post('/v1/traces')
      .set('x-api-key', INGEST_KEY)
      .set('Content-Type', 'application/json')
      .send(JSON.stringify(otlpJson(name, spans)))
      .expect(200);
  const get = (path: string, permissions = READ) => request(h.url).get(path).set('Authorization', h.bearer(permissions));

  beforeAll(async () => {
    h = await startTracing();
    await send([
      { traceId, spanId: rootId, name: 'agent.run', kind: 2, startNano: base, durationNano: 100n * MS, attributes: { 'user.id': 'u-1', retries: 3 } },
      {
        traceId,
        spanId: childId,
        parentSpanId: rootId,
        name: 'llm.call',
        kind: 3,
        startNano: base + 10n * MS,
        durationNano: 50n * MS,
        status: { code: 2, message: 'rate limited' },
        attributes: { 'llm.model': 'tiny', ok: false },
      },
      { traceId, spanId: orphanId, parentSpanId: hex(8), name: 'late.child', startNano: base + 20n * MS, durationNano: 1n * MS },
    ]);
    // 12 more spans, one per second, in other traces.
    await send(Array.from({ length: 12 }, (_, i) => ({ name: `step-${i}`, startNano: base + BigInt(i + 1) * 1000n * MS, attributes: { index: i } })));
  });
  afterAll(() => h.stop());

  it('returns a trace as a tree, orphans at the root, with its start, end, duration and root span', async () => {
    const res = await get(`/api/traces/${traceId}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ trace_id: traceId, span_count: 3, projects: [project], duration_ms: 100 });
    expect(res.body.root_span).toMatchObject({ span_id: rootId, name: 'agent.run', kind: 'SERVER', attributes: { 'user.id': 'u-1', retries: 3 } });
    expect(res.body.root_span.children).toBeUndefined();
    expect(res.body.spans.map((node: { span_id: string }) => node.span_id)).toEqual([rootId, orphanId]);
    expect(res.body.spans[0].children.map((node: { span_id: string }) => node.span_id)).toEqual([childId]);
    expect(res.body.spans[0].children[0].status).toEqual({ code: 'ERROR', message: 'rate limited' });
    expect(new Date(res.body.end_time).getTime() - new Date(res.body.start_time).getTime()).toBe(100);
  });

  it('answers 404 for an unknown trace and 400 for a malformed id', async () => {
    expect((await get(`/api/traces/${hex(16)}`)).status).toBe(404);
    const bad = await get('/api/traces/not-hex');
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues[0].path).toBe('params.trace_id');
  });

  it("pages a project's spans newest first with a cursor", async () => {
    const first = await get(`/api/projects/${project}/spans?limit=5`);
    expect(first.status).toBe(200);
    expect(first.body.total).toBe(15);
    expect(first.body.spans.map((span: { name: string }) => span.name)).toEqual(['step-11', 'step-10', 'step-9', 'step-8', 'step-7']);
    const seen = [...first.body.spans];
    let cursor = first.body.next_cursor;
    while (cursor) {
      const next = await get(`/api/projects/${project}/spans?limit=5&cursor=${cursor}`);
      seen.push(...next.body.spans);
      cursor = next.body.next_cursor;
    }
    expect(seen).toHaveLength(15);
    expect(new Set(seen.map((span: { span_id: string }) => span.span_id)).size).toBe(15);
    expect(seen.slice(-3).map((span: { name: string }) => span.name)).toEqual(['late.child', 'llm.call', 'agent.run']);
  });

  it('filters by name, status, kind, trace id, attribute and time range', async () => {
    const names = async (query: string) => (await get(`/api/projects/${project}/spans?${query}`)).body.spans.map((span: { name: string }) => span.name);
    expect(await names('name=llm.call')).toEqual(['llm.call']);
    expect(await names('status=error')).toEqual(['llm.call']);
    expect(await names('kind=SERVER')).toEqual(['agent.run']);
    expect((await names(`trace_id=${traceId}`)).sort()).toEqual(['agent.run', 'late.child', 'llm.call']);
    expect(await names('attr.user.id=u-1')).toEqual(['agent.run']);
    expect(await names('attr.retries=3')).toEqual(['agent.run']);
    expect(await names('attr.ok=false')).toEqual(['llm.call']);
    expect(await names('attr.index=4')).toEqual(['step-4']);
    const from = new Date(Number((base + 5000n * MS) / MS)).toISOString();
    const to = new Date(Number((base + 7000n * MS) / MS)).toISOString();
    expect(await names(`from=${from}&to=${to}`)).toEqual(['step-5', 'step-4']);
  });

  it('refuses bad query input with 400', async () => {
    for (const query of ['limit=0', 'limit=501', 'cursor=bm9wZQ', 'status=broken', 'kind=weird', 'from=yesterday', 'trace_id=xyz']) {
      const res = await get(`/api/projects/${project}/spans?${query}`);
      expect([query, res.status]).toEqual([query, 400]);
      expect(res.body.error.type).toBe('validation_error');
    }
    const repeated = await get(`/api/projects/${project}/spans?attr.a=1&attr.a=2`);
    expect(repeated.status).toBe(400);
  });

  it('counts spans and traces per project and time range', async () => {
    const all = await get(`/api/spans/count?project=${project}`);
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ total: 15, projects: [{ project, spans: 15, traces: 13 }] });
    const from = new Date(Number((base + 5000n * MS) / MS)).toISOString();
    expect((await get(`/api/spans/count?project=${project}&from=${from}`)).body.total).toBe(8);
    expect((await get('/api/spans/count?from=nope')).status).toBe(400);
  });

  it('reports statistics: spans, traces, storage, ingest and latency per project', async () => {
    const res = await get('/api/stats');
    expect(res.status).toBe(200);
    expect(res.body.spans).toBeGreaterThanOrEqual(15);
    expect(res.body.bytes_on_disk).toBeGreaterThan(0);
    expect(res.body.partitions).toBeGreaterThanOrEqual(1);
    expect(res.body.ingest).toMatchObject({ buffer_depth: 0, buffer_capacity: 50_000 });
    expect(res.body.ingest.accepted_spans).toBe(15);
    const mine = res.body.per_project.find((row: { project: string }) => row.project === project);
    expect(mine).toMatchObject({ spans: 15, traces: 13, error_rate: 1 / 15 });
    expect(mine.p50_ms).toBeCloseTo(5, 5);
    expect(mine.p95_ms).toBeGreaterThan(5);
  });

  it('needs a token with traces:read on every query endpoint', async () => {
    for (const path of [`/api/traces/${traceId}`, `/api/projects/${project}/spans`, '/api/spans/count', '/api/stats']) {
      expect([path, (await request(h.url).get(path)).status]).toEqual([path, 401]);
      const denied = await get(path, ['traces:write']);
      expect([path, denied.status]).toEqual([path, 403]);
      expect(denied.body.error.details.required).toBe('traces:read');
      expect([path, (await get(path, ['traces:*'])).status]).toEqual([path, 200]);
    }
  });
});
