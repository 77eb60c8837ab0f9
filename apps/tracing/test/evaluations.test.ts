import { eventually, listenLocally } from '@platform/testing';
import http from 'node:http';
import request from 'supertest';
import { hex, INGEST_KEY, nowNano, otlpJson, startTracing, uniqueName, type Harness } from './harness';

const READ = ['traces:read'];
const WRITE = ['traces:write', 'traces:read'];
const ADMIN = ['traces:admin'];

describe('datasets and evaluations', () => {
  let h: Harness;
  let target: http.Server;
  let targetUrl = '';
  /** Inputs the fake target refuses with 500 while they are in this set. */
  const failing = new Set<string>();
  const seenTraceparents: string[] = [];

  const post = (path: string, body: unknown, permissions = WRITE) =>
    request(h.url)
      .post(path)
      .set('Authorization', h.bearer(permissions))
      .send(body as object);
  const get = (path: string, permissions = READ) => request(h.url).get(path).set('Authorization', h.bearer(permissions));
  const dataset = async (data: unknown[]) => (await post('/api/datasets', { name: uniqueName('ds'), data }).expect(201)).body.id as string;
  const finished = (id: string) =>
    eventually(async () => {
      const page = (await get('/api/evaluations?limit=500')).body.evaluations as Array<{ id: string; status: string }>;
      const found = page.find((evaluation) => evaluation.id === id);
      return found && ['completed', 'completed_with_errors'].includes(found.status) ? found : undefined;
    }, 20_000);

  beforeAll(async () => {
    h = await startTracing();
    await request(h.url).post('/api/evaluations/resume').set('Authorization', h.bearer(ADMIN));
    target = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        seenTraceparents.push(String(req.headers.traceparent));
        const { input } = JSON.parse(body) as { input: string };
        if (failing.has(input)) {
          res.writeHead(500).end('down');
          return;
        }
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ output: `answer: ${input}` }));
      });
    });
    targetUrl = `${await listenLocally(target)}/answer`;
  });
  afterAll(async () => {
    await request(h.url).post('/api/evaluations/resume').set('Authorization', h.bearer(ADMIN));
    target.close();
    await h.stop();
  });

  it('stores datasets as versions, validated and listed with paging', async () => {
    const name = uniqueName('dataset');
    const first = await post('/api/datasets', { name, data: [{ input: 'a', expected_output: 'A' }] });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ name, version: 1, example_count: 1 });
    const second = await post('/api/datasets', { name, description: 'more', data: [{ input: 'a' }, { input: 'b', metadata: { k: 1 } }] });
    expect(second.body).toMatchObject({ name, version: 2, example_count: 2 });
    const list = await get(`/api/datasets?name=${name}`);
    expect(list.body.total).toBe(2);
    expect(list.body.datasets.map((row: { version: number }) => row.version)).toEqual([2, 1]);
    expect((await get(`/api/datasets/${second.body.id}`)).body.data).toEqual([{ input: 'a' }, { input: 'b', metadata: { k: 1 } }]);
    for (const body of [
      { name, data: [] },
      { name, data: [{ expected_output: 'x' }] },
      { data: [{ input: 1 }] },
      { name, data: 'nope' },
      { name: 'x', data: [{ input: 1, metadata: 'no' }] },
    ]) {
      expect((await post('/api/datasets', body)).status).toBe(400);
    }
    expect((await post('/api/datasets', { name, data: [{ input: 'x'.repeat(300 * 1024) }] })).status).toBe(413);
    expect((await post('/api/datasets', { name, data: [{ input: 1 }] }, READ)).status).toBe(403);
    expect((await request(h.url).get('/api/datasets')).status).toBe(401);
    expect((await get('/api/datasets?limit=0')).status).toBe(400);
  });

  it("scores the examples' own outputs with every metric, one job per example", async () => {
    const linked = hex(16);
    await request(h.url)
      .post('/v1/traces')
      .set('x-api-key', INGEST_KEY)
      .set('Content-Type', 'application/json')
      .send(
        JSON.stringify(
          otlpJson(uniqueName('linked'), [
            { traceId: linked, name: 'llm', durationNano: 250_000_000n, startNano: nowNano(), attributes: { 'llm.token_count.total': 17 } },
          ]),
        ),
      )
      .expect(200);
    const id = await dataset([
      { input: 'capital of France?', expected_output: 'Paris', output: 'Paris', metadata: { trace_id: linked } },
      { input: 'kitten', expected_output: 'sitting', output: 'kitten' },
      { input: 'json', expected_output: '{"a":1}', output: '{"a": 1}' },
    ]);
    const created = await post('/api/evaluations', {
      name: 'own outputs',
      dataset_id: id,
      metrics: ['exact_match', 'contains', 'levenshtein', 'json_valid', { name: 'regex', pattern: '^[A-Za-z]+$' }, 'latency', 'tokens'],
    });
    expect(created.status).toBe(202);
    expect(created.body.counts.total).toBe(3);
    const done = await finished(created.body.id);
    expect(done.status).toBe('completed');
    const results = (await get(`/api/evaluations/${created.body.id}/results`)).body;
    expect(results.total).toBe(3);
    const [paris, kitten, json] = results.results;
    expect(paris).toMatchObject({
      index: 0,
      status: 'succeeded',
      trace_id: linked,
      latency_ms: 250,
      scores: { exact_match: 1, contains: 1, levenshtein: 1, json_valid: 0, regex: 1, latency: 250, tokens: 17 },
    });
    expect(kitten.scores).toMatchObject({ exact_match: 0, contains: 0, json_valid: 0, regex: 1, latency: null, tokens: null });
    expect(kitten.scores.levenshtein).toBeCloseTo(4 / 7, 10);
    expect(json.scores).toMatchObject({ exact_match: 0, json_valid: 1, regex: 0 });
    const listed = (await get('/api/evaluations')).body.evaluations.find((evaluation: { id: string }) => evaluation.id === created.body.id);
    expect(listed.summary.exact_match).toBeCloseTo(1 / 3, 10);
  });

  it('calls a target for each output, traced, records failures after the retries run out, and retry re-runs only those', async () => {
    failing.add('broken');
    const id = await dataset([
      { input: 'one', expected_output: 'answer: one' },
      { input: 'broken', expected_output: 'answer: broken' },
    ]);
    const created = await post('/api/evaluations', { name: 'with target', dataset_id: id, metrics: ['exact_match', 'latency'], target: { url: targetUrl } });
    expect(created.status).toBe(202);
    const done = await finished(created.body.id);
    expect(done.status).toBe('completed_with_errors');
    expect(done).toMatchObject({ counts: { succeeded: 1, failed: 1 } });
    const errors = (await get(`/api/evaluations/${created.body.id}/errors`)).body;
    expect(errors.total).toBe(1);
    expect(errors.results[0]).toMatchObject({ index: 1, status: 'failed', attempts: 2, error: expect.stringMatching(/500/) });
    const ok = (await get(`/api/evaluations/${created.body.id}/results`)).body.results[0];
    expect(ok).toMatchObject({ status: 'succeeded', output: 'answer: one', scores: { exact_match: 1 } });
    expect(ok.scores.latency).toBeGreaterThan(0);
    // The call is traced: its span is stored, and the target received the trace context.
    const trace = await get(`/api/traces/${ok.trace_id}`);
    expect(trace.status).toBe(200);
    expect(trace.body.root_span).toMatchObject({ name: 'evaluation.example', attributes: { 'evaluation.id': created.body.id, 'output.value': 'answer: one' } });
    expect(seenTraceparents.some((header) => header.includes(ok.trace_id))).toBe(true);

    failing.delete('broken');
    const retry = await post(`/api/evaluations/${created.body.id}/retry`, {});
    expect(retry.body).toEqual({ evaluation_id: created.body.id, retried: 1 });
    const again = await finished(created.body.id);
    expect(again).toMatchObject({ status: 'completed', counts: { succeeded: 2, failed: 0 } });
    const results = (await get(`/api/evaluations/${created.body.id}/results`)).body.results;
    expect(results[0].trace_id).toBe(ok.trace_id); // the succeeded example was not run again
    expect(results[1]).toMatchObject({ status: 'succeeded', output: 'answer: broken', attempts: 3 });
    expect((await post(`/api/evaluations/${created.body.id}/retry`, {})).body.retried).toBe(0);
  });

  it('refuses bad evaluation input, unknown datasets and evaluations, and missing permissions', async () => {
    const id = await dataset([{ input: 'x', output: 'x' }]);
    for (const body of [
      { name: 'x', dataset_id: id, metrics: [] },
      { name: 'x', dataset_id: id, metrics: ['bleu'] },
      { name: 'x', dataset_id: 'nope', metrics: ['exact_match'] },
      { name: 'x', dataset_id: id, metrics: [{ name: 'regex', pattern: '(' }] },
      { name: 'x', dataset_id: id, metrics: ['exact_match'], target: { url: 'ftp://example.test' } },
    ]) {
      expect([body, (await post('/api/evaluations', body)).status]).toEqual([body, 400]);
    }
    expect((await post('/api/evaluations', { name: 'x', dataset_id: '00000000-0000-4000-8000-000000000000', metrics: ['exact_match'] })).status).toBe(404);
    expect((await post('/api/evaluations', { name: 'x', dataset_id: id, metrics: ['exact_match'] }, READ)).status).toBe(403);
    expect((await get('/api/evaluations/00000000-0000-4000-8000-000000000000/results')).status).toBe(404);
    expect((await get('/api/evaluations/not-a-uuid/errors')).status).toBe(400);
    expect((await post('/api/evaluations/pause', {}, WRITE)).status).toBe(403);
  });

  it('pause stops taking examples, resume continues where it stopped; status and active report it', async () => {
    const paused = await post('/api/evaluations/pause', {}, ADMIN);
    expect(paused.status).toBe(200);
    expect(paused.body.paused).toBe(true);
    const id = await dataset(Array.from({ length: 4 }, (_, i) => ({ input: `q${i}`, expected_output: `a${i}`, output: `a${i}` })));
    const created = await post('/api/evaluations', { name: 'paused', dataset_id: id, metrics: ['exact_match'] });
    expect(created.body.status).toBe('paused');
    const status = await get('/api/evaluations/status');
    expect(status.body.paused).toBe(true);
    expect(status.body.jobs.waiting).toBeGreaterThanOrEqual(4);
    const active = await get('/api/evaluations/active');
    const mine = active.body.evaluations.find((evaluation: { id: string }) => evaluation.id === created.body.id);
    expect(mine).toMatchObject({ status: 'paused', counts: { pending: 4, succeeded: 0 } });

    const resumed = await post('/api/evaluations/resume', {}, ADMIN);
    expect(resumed.body.paused).toBe(false);
    const done = await finished(created.body.id);
    expect(done).toMatchObject({ status: 'completed', counts: { succeeded: 4 }, summary: { exact_match: 1 } });
    const after = await get('/api/evaluations/active');
    expect(after.body.evaluations.some((evaluation: { id: string }) => evaluation.id === created.body.id)).toBe(false);
  });
});
