import { closeLocally, eventually, listenLocally, startPrivateRedis, type PrivateRedis } from '@platform/testing';
import http from 'node:http';
import request from 'supertest';
import { startTracing, uniqueName, type Harness } from './harness';

const READ = ['traces:read'];
const WRITE = ['traces:write', 'traces:read'];
const JUDGE_KEY = 'judge-key-for-tests';

interface ChatRequest {
  model: string;
  temperature: number;
  messages: Array<{ role: string; content: string }>;
}

/** An OpenAI-compatible chat completions server whose grade depends on the example's input in the prompt. */
function fakeJudge(seen: Array<{ authorization?: string; body: ChatRequest }>): http.Server {
  return http.createServer((req, res) => {
    let text = '';
    req.on('data', (chunk) => (text += chunk));
    req.on('end', () => {
      const body = JSON.parse(text) as ChatRequest;
      seen.push({ authorization: req.headers.authorization, body });
      const prompt = body.messages[1].content;
      const retried = body.messages.length > 2;
      const answer = (content: string) => {
        res.setHeader('content-type', 'application/json');
        res.end(
          JSON.stringify({
            id: 'chatcmpl-1',
            object: 'chat.completion',
            model: `${body.model}-2026`,
            choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
            usage: { prompt_tokens: 120, completion_tokens: 30, total_tokens: 150 },
          }),
        );
      };
      if (prompt.includes('Question: down')) return void res.writeHead(503).end('overloaded');
      if (prompt.includes('Question: good')) return answer('{"score": 5, "reasoning": "correct and complete"}');
      if (prompt.includes('Question: fenced')) return answer('Here is my grade:\n```json\n{"score": 2, "reasoning": "partly right"}\n```');
      if (prompt.includes('Question: malformed-once')) return answer(retried ? '{"score": 4, "reasoning": "fine, on second thought"}' : 'It looks fine to me.');
      return answer('{"score": 11, "reasoning": "off the scale"}');
    });
  });
}

const judgeMetric = (extra: Record<string, unknown> = {}) => ({
  kind: 'llm_judge',
  name: 'correctness',
  model: 'judge-model',
  prompt: 'Question: {{input}}\nAnswer: {{output}}\nReference: {{expected}}',
  rubric: { min: 1, max: 5, pass_threshold: 4, criteria: '5: correct and complete; 1: wrong' },
  ...extra,
});

describe('LLM-as-a-judge evaluations', () => {
  let redis: PrivateRedis;
  let h: Harness;
  let judge: http.Server;
  const seen: Array<{ authorization?: string; body: ChatRequest }> = [];

  const post = (path: string, body: unknown, permissions = WRITE) =>
    request(h.url)
      .post(path)
      .set('Authorization', h.bearer(permissions))
      .send(body as object);
  const get = (path: string) => request(h.url).get(path).set('Authorization', h.bearer(READ));
  const finished = (harness: Harness, id: string) =>
    eventually(async () => {
      const res = await request(harness.url).get('/api/evaluations?limit=500').set('Authorization', harness.bearer(READ));
      const found = (res.body.evaluations as Array<{ id: string; status: string }>).find((evaluation) => evaluation.id === id);
      return found && ['completed', 'completed_with_errors'].includes(found.status) ? found : undefined;
    }, 30_000);

  beforeAll(async () => {
    // Its own Redis: the evaluation queue's workers must be this judge's, not another test process's.
    redis = await startPrivateRedis();
    judge = fakeJudge(seen);
    const judgeUrl = `${await listenLocally(judge)}/v1/chat/completions`;
    h = await startTracing({ REDIS_URL: redis.url, TRACING_JUDGE_URL: judgeUrl, TRACING_JUDGE_API_KEY: JUDGE_KEY });
  });
  afterAll(async () => {
    await h?.stop();
    if (judge) await closeLocally(judge);
    await redis?.stop();
  });

  it('grades each example with the rubric, stores score, verdict and reasoning; retries a malformed answer; records failures per example', async () => {
    const dataset = await post('/api/datasets', {
      name: uniqueName('judged'),
      data: [
        { input: 'good', output: 'Paris', expected_output: 'Paris' },
        { input: 'fenced', output: 'Lyon', expected_output: 'Paris' },
        { input: 'malformed-once', output: 'Paris, France', expected_output: 'Paris' },
        { input: 'always-out-of-range', output: '?', expected_output: 'Paris' },
        { input: 'down', output: 'Paris', expected_output: 'Paris' },
      ],
    }).expect(201);
    const created = await post('/api/evaluations', { name: 'judge', dataset_id: dataset.body.id, metrics: ['exact_match', judgeMetric()] });
    expect(created.status).toBe(202);
    const done = await finished(h, created.body.id);
    expect(done).toMatchObject({ status: 'completed_with_errors', counts: { succeeded: 3, failed: 2 } });
    const { summary } = done as unknown as { summary: Record<string, number> };
    expect(summary.correctness).toBeCloseTo(11 / 3, 5);
    expect(summary['correctness.pass_rate']).toBeCloseTo(2 / 3, 5); // 5 and 4 pass, 2 does not

    const { results } = (await get(`/api/evaluations/${created.body.id}/results`)).body as {
      results: Array<{
        index: number;
        status: string;
        scores: Record<string, number>;
        judgments: Record<string, unknown> | null;
        error: string | null;
        attempts: number;
      }>;
    };
    expect(results[0]).toMatchObject({
      status: 'succeeded',
      scores: { exact_match: 1, correctness: 5 },
      judgments: { correctness: { score: 5, passed: true, reasoning: 'correct and complete', model: 'judge-model', attempts: 1 } },
    });
    expect(results[1].judgments).toEqual({ correctness: { score: 2, passed: false, reasoning: 'partly right', model: 'judge-model', attempts: 1 } });
    expect(results[2].judgments).toEqual({ correctness: { score: 4, passed: true, reasoning: 'fine, on second thought', model: 'judge-model', attempts: 2 } });
    // Malformed three times (the first answer and two retries): failed at once, not retried as a job.
    expect(results[3]).toMatchObject({ status: 'failed', scores: null, judgments: null, attempts: 1 });
    expect(results[3].error).toMatch(/malformed 3 times: the score 11 is outside 1 to 5/);
    // The judge answering 503 is retried as a job (TRACING_EVAL_ATTEMPTS=2), then recorded.
    expect(results[4]).toMatchObject({ status: 'failed', attempts: 2 });
    expect(results[4].error).toMatch(/the judge answered 503/);

    // What the judge was sent: the key, the model, the rendered template, the rubric, the retry's reason.
    const good = seen.find((call) => call.body.messages[1].content.includes('Question: good'))!;
    expect(good.authorization).toBe(`Bearer ${JUDGE_KEY}`);
    expect(good.body).toMatchObject({ model: 'judge-model', temperature: 0 });
    expect(good.body.messages[0].content).toMatch(/score from 1 to 5; a score of 4 or more passes[\s\S]*5: correct and complete/);
    expect(good.body.messages[1].content).toBe('Question: good\nAnswer: Paris\nReference: Paris');
    const retry = seen.find((call) => call.body.messages[1].content.includes('Question: malformed-once') && call.body.messages.length > 2)!;
    expect(retry.body.messages[3].content).toMatch(/could not be read: the answer holds no JSON object/);

    // Each judge call is a model call of the evaluations project, with its tokens.
    const spans = await get(`/api/projects/evaluations/spans?attr.evaluation.id=${created.body.id}&name=judge%20correctness&status=ok`);
    expect(spans.status).toBe(200);
    expect(spans.body.spans).toHaveLength(3);
    expect(spans.body.spans[0].model_call).toMatchObject({ model: 'judge-model-2026', input_tokens: 120, output_tokens: 30 });
  });

  it('refuses judge metrics with unknown template variables, a bad rubric or a name taken twice (400)', async () => {
    const dataset = (await post('/api/datasets', { name: uniqueName('judged'), data: [{ input: 'q', output: 'a' }] }).expect(201)).body.id as string;
    for (const metrics of [
      [judgeMetric({ prompt: 'Leak {{secret}}' })],
      [judgeMetric({ rubric: { min: 5, max: 1, pass_threshold: 3 } })],
      [judgeMetric({ rubric: { min: 0, max: 1, pass_threshold: 2 } })],
      [judgeMetric({ name: 'exact_match' })],
      [judgeMetric({ model: '' })],
      [judgeMetric({ url: 'http://elsewhere' })],
      [judgeMetric(), judgeMetric()],
    ]) {
      const res = await post('/api/evaluations', { name: 'bad', dataset_id: dataset, metrics });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
    }
    expect((await post('/api/evaluations', { name: 'two', dataset_id: dataset, metrics: [judgeMetric(), judgeMetric({ name: 'tone' })] })).status).toBe(202);
  });
});

describe('LLM-as-a-judge with the judge down', () => {
  it('marks the examples failed with the reason, and the evaluation completes', async () => {
    const redis = await startPrivateRedis();
    const closed = http.createServer();
    const url = await listenLocally(closed);
    await closeLocally(closed); // nothing listens there any more
    const h = await startTracing({ REDIS_URL: redis.url, TRACING_JUDGE_URL: `${url}/v1/chat/completions` });
    try {
      const bearer = h.bearer(WRITE);
      const dataset = await request(h.url)
        .post('/api/datasets')
        .set('Authorization', bearer)
        .send({
          name: uniqueName('judged'),
          data: [
            { input: 'a', output: 'b' },
            { input: 'c', output: 'd' },
          ],
        })
        .expect(201);
      const created = await request(h.url)
        .post('/api/evaluations')
        .set('Authorization', bearer)
        .send({ name: 'down', dataset_id: dataset.body.id, metrics: ['json_valid', judgeMetric()] })
        .expect(202);
      const done = await eventually(async () => {
        const res = await request(h.url).get('/api/evaluations?limit=500').set('Authorization', bearer);
        const found = (res.body.evaluations as Array<{ id: string; status: string }>).find((evaluation) => evaluation.id === created.body.id);
        return found?.status === 'completed_with_errors' ? found : undefined;
      }, 30_000);
      expect(done).toMatchObject({ counts: { failed: 2, succeeded: 0 } });
      const errors = await request(h.url).get(`/api/evaluations/${created.body.id}/errors`).set('Authorization', bearer);
      expect(errors.status).toBe(200);
      expect(errors.body.results).toHaveLength(2);
      for (const result of errors.body.results) expect(result.error).toMatch(/the judge at 127\.0\.0\.1:\d+ is unavailable: ECONNREFUSED/);
    } finally {
      await h.stop();
      await redis.stop();
    }
  });
});
