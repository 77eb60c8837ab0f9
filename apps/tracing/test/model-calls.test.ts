import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import { hex, INGEST_KEY, nowNano, otlpJson, startTracing, uniqueName, type Harness, type SpanSpec } from './harness';

const READ = ['traces:read'];
const ROOT = path.join(__dirname, '../../..');
const MINUTE = 60_000_000_000n;
const run = promisify(execFile);

/** Three traces of one project: two in session one (user one), one in session two (user two). */
describe('model calls: GenAI spans costed at ingestion, usage by model, project, user and session, sessions', () => {
  let h: Harness;
  const project = uniqueName('genai');
  const priced = uniqueName('gpt');
  const local = uniqueName('llama');
  const unknown = uniqueName('mystery');
  const [sessionOne, sessionTwo] = [uniqueName('session'), uniqueName('session')];
  const [userOne, userTwo] = [uniqueName('user'), uniqueName('user')];
  const traces = { a: hex(16), b: hex(16), c: hex(16) };
  // Starts spread over the last day, so that a time window picks exactly one trace.
  const base = nowNano() - 60n * MINUTE - BigInt(Math.floor(Math.random() * 600)) * MINUTE;
  const starts = { a: base, b: base + 5n * MINUTE, c: base + 10n * MINUTE };
  const iso = (ns: bigint) => new Date(Number(ns / 1_000_000n)).toISOString();

  const post = (spans: SpanSpec[]) =>
    request(h.url).post('/v1/traces').set('x-api-key', INGEST_KEY).set('content-type', 'application/json').send(otlpJson(project, spans));

  beforeAll(async () => {
    h = await startTracing({
      TRACING_MODEL_PRICES: JSON.stringify({ [priced]: { input: 1, output: 2 } }),
      // The value `npm run up` gives local-models reaches tracing too; TRACING_MODEL_PRICES wins where both name a model.
      LOCAL_MODELS_PRICES: JSON.stringify({ [local]: 0.5, [priced]: 100 }),
    });
    const rootA = hex(8);
    const rootB = hex(8);
    const rootC = hex(8);
    const responses = await Promise.all([
      post([
        {
          traceId: traces.a,
          spanId: rootA,
          name: 'chat-a',
          startNano: starts.a,
          durationNano: 300_000_000n,
          attributes: { 'session.id': sessionOne, 'user.id': userOne },
        },
        {
          traceId: traces.a,
          parentSpanId: rootA,
          name: 'chat gpt',
          kind: 3,
          startNano: starts.a + 1_000_000n,
          durationNano: 100_000_000n,
          attributes: {
            'gen_ai.system': 'openai',
            'gen_ai.request.model': priced,
            // The answering model's dated name is not in the table: the requested one prices it.
            'gen_ai.response.model': `${priced}-2026-11-01`,
            'gen_ai.usage.input_tokens': 1000,
            'gen_ai.usage.output_tokens': 500,
            'gen_ai.prompt': 'What is 2+2?',
            'gen_ai.completion': '4',
          },
        },
      ]),
      post([
        {
          traceId: traces.b,
          spanId: rootB,
          name: 'chat-b',
          startNano: starts.b,
          durationNano: 300_000_000n,
          attributes: { 'session.id': sessionOne, 'user.id': userOne },
        },
        {
          traceId: traces.b,
          parentSpanId: rootB,
          name: 'chat llama',
          startNano: starts.b + 1_000_000n,
          durationNano: 200_000_000n,
          attributes: { 'gen_ai.system': 'ollama', 'gen_ai.request.model': local, 'gen_ai.usage.input_tokens': 2000, 'gen_ai.usage.output_tokens': 0 },
        },
      ]),
      post([
        { traceId: traces.c, spanId: rootC, name: 'chat-c', startNano: starts.c, attributes: { 'session.id': sessionTwo, 'user.id': userTwo } },
        {
          traceId: traces.c,
          parentSpanId: rootC,
          name: 'chat mystery',
          startNano: starts.c + 1_000_000n,
          status: { code: 2, message: 'rate limited' },
          attributes: { 'gen_ai.request.model': unknown, 'gen_ai.usage.input_tokens': 10, 'gen_ai.usage.output_tokens': 10 },
        },
      ]),
    ]);
    for (const res of responses) expect(res.status).toBe(200);
  });
  afterAll(() => h?.stop());

  it('stores a model call with its span: model, system, tokens, cost from the price table, prompt and completion', async () => {
    const res = await request(h.url).get(`/api/traces/${traces.a}`).set('Authorization', h.bearer(READ));
    expect(res.status).toBe(200);
    expect(res.body.root_span).toMatchObject({ session_id: sessionOne, user_id: userOne, model_call: null });
    expect(res.body.spans[0].children[0].model_call).toEqual({
      model: `${priced}-2026-11-01`,
      system: 'openai',
      input_tokens: 1000,
      output_tokens: 500,
      total_tokens: 1500,
      cost: 2, // 1,000 × 1 + 500 × 2 per 1,000 tokens
      prompt: 'What is 2+2?',
      completion: '4',
    });
    const b = await request(h.url).get(`/api/traces/${traces.b}`).set('Authorization', h.bearer(READ));
    expect(b.body.spans[0].children[0].model_call).toMatchObject({ model: local, system: 'ollama', cost: 1 });
    const c = await request(h.url).get(`/api/traces/${traces.c}`).set('Authorization', h.bearer(READ));
    expect(c.body.spans[0].children[0].model_call).toMatchObject({ model: unknown, system: null, input_tokens: 10, cost: null });
  });

  it('aggregates by model: tokens, cost, latency, unpriced calls and errors', async () => {
    const res = await request(h.url).get('/api/usage').query({ group_by: 'model', project }).set('Authorization', h.bearer(READ));
    expect(res.status).toBe(200);
    expect(res.body.totals).toEqual({ calls: 3, input_tokens: 3010, output_tokens: 510, total_tokens: 3520, cost: 3, unpriced_calls: 1, errors: 1 });
    expect(res.body.total).toBe(3);
    expect(res.body.groups.map((group: { key: string }) => group.key)).toEqual([`${priced}-2026-11-01`, local, unknown]);
    expect(res.body.groups[0]).toMatchObject({ calls: 1, cost: 2, avg_ms: 100, p50_ms: 100, p95_ms: 100, first_seen: iso(starts.a + 1_000_000n) });
    expect(res.body.groups[2]).toMatchObject({ calls: 1, cost: 0, unpriced_calls: 1, errors: 1 });
  });

  it("aggregates by user and session, taking them from the trace's root span", async () => {
    const users = await request(h.url).get('/api/usage').query({ group_by: 'user', project }).set('Authorization', h.bearer(READ));
    expect(users.status).toBe(200);
    expect(users.body.groups).toEqual([
      expect.objectContaining({ key: userOne, calls: 2, cost: 3, input_tokens: 3000 }),
      expect.objectContaining({ key: userTwo, calls: 1, cost: 0 }),
    ]);
    const sessions = await request(h.url).get('/api/usage').query({ group_by: 'session', project, user_id: userOne }).set('Authorization', h.bearer(READ));
    expect(sessions.body.groups).toEqual([expect.objectContaining({ key: sessionOne, calls: 2, cost: 3 })]);
    const projects = await request(h.url).get('/api/usage').query({ group_by: 'project', project }).set('Authorization', h.bearer(READ));
    expect(projects.body.groups).toEqual([expect.objectContaining({ key: project, calls: 3, cost: 3 })]);
  });

  it('bounds usage and stats by a time range', async () => {
    const window = { from: iso(starts.b), to: iso(starts.c) };
    const res = await request(h.url)
      .get('/api/usage')
      .query({ project, ...window })
      .set('Authorization', h.bearer(READ));
    expect(res.body).toMatchObject({ from: window.from, to: window.to, totals: { calls: 1, cost: 1 } });
    expect(res.body.groups.map((group: { key: string }) => group.key)).toEqual([local]);
    const stats = await request(h.url)
      .get('/api/stats')
      .query({ from: iso(starts.a), to: iso(starts.a + 2_000_000n) })
      .set('Authorization', h.bearer(READ));
    expect(stats.status).toBe(200);
    expect(stats.body.model_calls).toMatchObject({ from: iso(starts.a) });
    expect(stats.body.model_calls.per_model).toContainEqual(expect.objectContaining({ key: `${priced}-2026-11-01`, calls: 1, cost: 2, total_tokens: 1500 }));
  });

  it('lists sessions, the most recent first, with their figures; filters by user', async () => {
    const res = await request(h.url).get('/api/sessions').query({ project }).set('Authorization', h.bearer(READ));
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(2);
    expect(res.body.sessions.map((session: { session_id: string }) => session.session_id)).toEqual([sessionTwo, sessionOne]);
    expect(res.body.sessions[1]).toMatchObject({
      users: [userOne],
      projects: [project],
      trace_count: 2,
      span_count: 4,
      model_calls: 2,
      input_tokens: 3000,
      output_tokens: 500,
      cost: 3,
      errors: 0,
      first_seen: iso(starts.a),
    });
    const mine = await request(h.url).get('/api/sessions').query({ project, user_id: userTwo }).set('Authorization', h.bearer(READ));
    expect(mine.body.sessions.map((session: { session_id: string }) => session.session_id)).toEqual([sessionTwo]);
    expect(mine.body.sessions[0]).toMatchObject({ errors: 1, cost: 0 });
  });

  it('shows a session as its traces in the order they started', async () => {
    const res = await request(h.url).get(`/api/sessions/${sessionOne}`).set('Authorization', h.bearer(READ));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ session_id: sessionOne, trace_count: 2, cost: 3 });
    expect(res.body.traces).toEqual([
      expect.objectContaining({
        trace_id: traces.a,
        name: 'chat-a',
        span_count: 2,
        model_calls: 1,
        models: [`${priced}-2026-11-01`],
        cost: 2,
        duration_ms: 300,
      }),
      expect.objectContaining({ trace_id: traces.b, name: 'chat-b', model_calls: 1, models: [local], input_tokens: 2000, cost: 1 }),
    ]);
  });

  it('answers 404 for an unknown session, 400 for bad queries, 401 without a token, 403 without traces:read', async () => {
    const missing = await request(h.url)
      .get(`/api/sessions/${uniqueName('nobody')}`)
      .set('Authorization', h.bearer(READ));
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({ type: 'not_found_error', code: 'not_found' });
    for (const query of [{ group_by: 'team' }, { from: 'yesterday' }, { limit: '501' }, { other: 'x' }]) {
      const bad = await request(h.url).get('/api/usage').query(query).set('Authorization', h.bearer(READ));
      expect(bad.status).toBe(400);
      expect(bad.body.error.code).toBe('invalid_request');
    }
    expect((await request(h.url).get('/api/sessions').query({ limit: 0 }).set('Authorization', h.bearer(READ))).status).toBe(400);
    expect((await request(h.url).get('/api/usage')).status).toBe(401);
    expect((await request(h.url).get('/api/sessions')).status).toBe(401);
    const denied = await request(h.url)
      .get('/api/sessions')
      .set('Authorization', h.bearer(['traces:write']));
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('insufficient_permissions');
  });

  it('costs GenAI spans exported over OTLP/gRPC by the OpenTelemetry SDK the same way', async () => {
    const grpcProject = uniqueName('genai-grpc');
    const { stdout } = await run(process.execPath, [require.resolve('tsx/cli', { paths: [ROOT] }), path.join(__dirname, 'fixtures/export-spans.ts')], {
      cwd: ROOT,
      env: {
        ...process.env,
        EXPORT_URL: `http://127.0.0.1:${h.grpcPort}`,
        EXPORTER: 'grpc',
        EXPORT_HEADERS: JSON.stringify({ 'x-api-key': INGEST_KEY }),
        EXPORT_PROJECT: grpcProject,
        EXPORT_CHILD_ATTRIBUTES: JSON.stringify({ 'gen_ai.request.model': priced, 'gen_ai.usage.input_tokens': 2000, 'gen_ai.usage.output_tokens': 1000 }),
      },
      timeout: 30_000,
    });
    const res = await request(h.url).get(`/api/traces/${stdout.trim()}`).set('Authorization', h.bearer(READ));
    expect(res.status).toBe(200);
    expect(res.body.spans[0].children[0].model_call).toMatchObject({ model: priced, input_tokens: 2000, output_tokens: 1000, cost: 4 });
  });
});
