import { Queue } from 'bullmq';
import request from 'supertest';
import { testRedisUrl } from '@platform/testing';
import { hex, INGEST_KEY, nowNano, otlpJson, startTracing, uniqueName, type Harness, type SpanSpec } from './harness';

const ADMIN = ['traces:admin'];
const READ = ['traces:read'];
const DAY = 86_400_000_000_000n;
const HOUR = 3_600_000_000_000n;

describe('retention and deletion', () => {
  let h: Harness;
  const send = (project: string, spans: SpanSpec[]) =>
    request(h.url)
      .post('/v1/traces')
      .set('x-api-key', INGEST_KEY)
      .set('Content-Type', 'application/json')
      .send(JSON.stringify(otlpJson(project, spans)))
      .expect(200);
  const exists = async (traceId: string) => (await request(h.url).get(`/api/traces/${traceId}`).set('Authorization', h.bearer(READ))).status === 200;
  const admin = (method: 'get' | 'put' | 'post' | 'delete', path: string) => request(h.url)[method](path).set('Authorization', h.bearer(ADMIN));

  beforeAll(async () => {
    h = await startTracing();
  });
  afterAll(async () => {
    await admin('put', '/api/config').send({ retention_days: 30, max_spans_per_project: null, project_span_caps: {} });
    await h.stop();
  });

  it('shows and changes the retention settings (traces:admin), refusing bad values', async () => {
    const current = await admin('get', '/api/config');
    expect(current.status).toBe(200);
    expect(current.body).toHaveProperty('retention_days');
    expect((await request(h.url).get('/api/config').set('Authorization', h.bearer(READ))).status).toBe(403);
    expect((await request(h.url).put('/api/config').set('Authorization', h.bearer(READ)).send({ retention_days: 3 })).status).toBe(403);
    expect((await request(h.url).put('/api/config').send({ retention_days: 3 })).status).toBe(401);
    for (const body of [{ retention_days: 0 }, { retention_days: 'ten' }, { retention_days: 5, extra: 1 }, { project_span_caps: { p: -1 } }]) {
      expect((await admin('put', '/api/config').send(body)).status).toBe(400);
    }
    const set = await admin('put', '/api/config').send({ retention_days: 30 });
    expect(set.body.retention_days).toBe(30);
  });

  it('by days: drops whole day partitions past the cutoff and trims the boundary day, keeping the rest', async () => {
    const project = uniqueName('age');
    const now = nowNano();
    const traces = { old: hex(16), justOlder: hex(16), justNewer: hex(16), recent: hex(16) };
    await send(project, [
      { traceId: traces.old, startNano: now - 12n * DAY },
      { traceId: traces.justOlder, startNano: now - 5n * DAY - HOUR },
      { traceId: traces.justNewer, startNano: now - 5n * DAY + HOUR },
      { traceId: traces.recent, startNano: now - DAY },
    ]);
    const oldDay = new Date(Number((now - 12n * DAY) / 1_000_000n)).toISOString().slice(0, 10).replace(/-/g, '');
    await admin('put', '/api/config').send({ retention_days: 5 }).expect(200);
    const gc = await admin('post', '/api/gc');
    expect(gc.status).toBe(200);
    expect(gc.body.partitions_dropped).toContain(`spans_p${oldDay}`);
    expect(gc.body.spans_deleted_by_age).toBeGreaterThanOrEqual(2);
    expect(await exists(traces.old)).toBe(false);
    expect(await exists(traces.justOlder)).toBe(false);
    expect(await exists(traces.justNewer)).toBe(true);
    expect(await exists(traces.recent)).toBe(true);
    // Spans older than the retention period are refused at ingestion from now on.
    const late = await request(h.url)
      .post('/v1/traces')
      .set('x-api-key', INGEST_KEY)
      .set('Content-Type', 'application/json')
      .send(JSON.stringify(otlpJson(project, [{ startNano: now - 6n * DAY }])));
    expect(late.body.partialSuccess.rejectedSpans).toBe('1');
    await admin('put', '/api/config').send({ retention_days: 30 }).expect(200);
  });

  it("by count: keeps each capped project's newest spans and touches no other project", async () => {
    const capped = uniqueName('cap');
    const other = uniqueName('uncapped');
    const base = nowNano() - HOUR;
    const spans = Array.from({ length: 10 }, (_, i) => ({ name: `s${i}`, startNano: base + BigInt(i) * 1_000_000_000n }));
    await send(capped, spans);
    await send(other, spans);
    await admin('put', '/api/config')
      .send({ project_span_caps: { [capped]: 3 } })
      .expect(200);
    const gc = await admin('post', '/api/gc');
    expect(gc.body.spans_deleted_by_cap).toBe(7);
    const left = await request(h.url).get(`/api/projects/${capped}/spans`).set('Authorization', h.bearer(READ));
    expect(left.body.spans.map((span: { name: string }) => span.name)).toEqual(['s9', 's8', 's7']);
    expect((await request(h.url).get(`/api/projects/${other}/spans`).set('Authorization', h.bearer(READ))).body.total).toBe(10);
    await admin('put', '/api/config').send({ project_span_caps: {} }).expect(200);
  });

  it('deletes traces by ids and answers the numbers', async () => {
    const project = uniqueName('del-ids');
    const [a, b, c] = [hex(16), hex(16), hex(16)];
    await send(project, [{ traceId: a }, { traceId: a }, { traceId: b }, { traceId: c }]);
    const res = await admin('delete', `/api/traces?trace_id=${a}&trace_id=${b}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ traces_deleted: 2, spans_deleted: 3 });
    expect(await exists(a)).toBe(false);
    expect(await exists(c)).toBe(true);
    expect((await admin('delete', `/api/traces?trace_id=${c}`)).body).toEqual({ traces_deleted: 1, spans_deleted: 1 });
  });

  it('deletes traces that started before a date, whole', async () => {
    const project = uniqueName('del-date');
    const now = nowNano();
    const [old, straddling, recent] = [hex(16), hex(16), hex(16)];
    await send(project, [
      { traceId: old, startNano: now - 25n * DAY },
      { traceId: old, startNano: now - 25n * DAY + HOUR },
      { traceId: straddling, startNano: now - 21n * DAY },
      { traceId: straddling, startNano: now - 19n * DAY },
      { traceId: recent, startNano: now - DAY },
    ]);
    const before = new Date(Number((now - 20n * DAY) / 1_000_000n)).toISOString();
    const res = await admin('delete', `/api/traces?before=${before}`);
    expect(res.status).toBe(200);
    expect(res.body.traces_deleted).toBeGreaterThanOrEqual(2);
    expect(res.body.spans_deleted).toBeGreaterThanOrEqual(4);
    expect(await exists(old)).toBe(false);
    expect(await exists(straddling)).toBe(false);
    expect(await exists(recent)).toBe(true);
  });

  it('refuses deletion without admin or with bad input', async () => {
    expect(
      (
        await request(h.url)
          .delete(`/api/traces?trace_id=${hex(16)}`)
          .set('Authorization', h.bearer(READ))
      ).status,
    ).toBe(403);
    expect((await request(h.url).delete(`/api/traces?trace_id=${hex(16)}`)).status).toBe(401);
    for (const query of ['', 'before=soon', 'trace_id=abc', `before=2026-01-01&trace_id=${hex(16)}`]) {
      expect([query, (await admin('delete', `/api/traces?${query}`)).status]).toEqual([query, 400]);
    }
    expect((await request(h.url).post('/api/gc').set('Authorization', h.bearer(READ))).status).toBe(403);
    expect((await request(h.url).post('/api/flush')).status).toBe(401);
  });

  it('flushes on demand and schedules the retention job in BullMQ', async () => {
    const flush = await admin('post', '/api/flush');
    expect(flush.status).toBe(200);
    expect(flush.body.buffer_depth).toBe(0);
    const queue = new Queue('tracing.retention', { connection: { url: testRedisUrl } as never });
    // Last in this file, after every test that changes the settings: its first run starts at once.
    const scheduling = await startTracing({ TRACING_RETENTION_INTERVAL_MS: '3600000' });
    try {
      const schedulers = await queue.getJobSchedulers();
      expect(schedulers.find((scheduler) => scheduler.key === 'tracing.retention')).toMatchObject({ every: 3_600_000 });
    } finally {
      // No hourly run left behind to fire in a later test run.
      await queue.removeJobScheduler('tracing.retention');
      await queue.close();
      await scheduling.stop();
    }
  });
});
