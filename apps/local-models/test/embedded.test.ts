import request from 'supertest';
import { ndjson, startHarness, type Harness, errorOf } from './support/harness';

/** The embedded backend for real: node-llama-cpp loads the tiny GGUF model the suite wrote. */
describe('embedded models (node-llama-cpp over a GGUF file)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ ollama: false });
  });
  afterAll(() => h.stop());

  it('lists the GGUF file as a model with its size, digest and details', async () => {
    const res = await request(h.url).get('/api/tags').set('Authorization', h.reader);
    expect(res.status).toBe(200);
    expect(res.body.models).toEqual([
      expect.objectContaining({
        name: 'tiny:latest',
        model: 'tiny:latest',
        backend: 'embedded',
        size: expect.any(Number),
        digest: expect.stringMatching(/^[0-9a-f]{64}$/),
        details: expect.objectContaining({ format: 'gguf', family: 'llama', quantization_level: 'F32' }),
      }),
    ]);
    expect(res.body.unavailable).toBeUndefined();
  });

  it('streams a generation as NDJSON chunks, then a final line with real token counts', async () => {
    const res = await request(h.url)
      .post('/api/generate')
      .set('Authorization', h.user)
      .send({ model: 'tiny', prompt: 'hello world', options: { num_predict: 8, temperature: 0 } });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/application\/x-ndjson/);
    const lines = ndjson(res.text);
    const chunks = lines.filter((line) => line.done === false);
    const final = lines.at(-1)!;
    expect(chunks.length).toBeGreaterThan(0);
    for (const chunk of chunks) expect(chunk).toEqual({ model: 'tiny:latest', created_at: expect.any(String), response: expect.any(String), done: false });
    expect(final).toMatchObject({ model: 'tiny:latest', response: '', done: true, done_reason: 'length', eval_count: 8 });
    expect(final.prompt_eval_count).toBeGreaterThan(2);
    expect(final.total_duration).toBeGreaterThan(0);
    expect(chunks.map((chunk) => chunk.response).join('').length).toBeGreaterThan(0);
  });

  it('answers one object with stream false; temperature 0 is deterministic and a seed repeats a sampled answer', async () => {
    const ask = (options: Record<string, unknown>) =>
      request(h.url).post('/api/generate').set('Authorization', h.user).send({ model: 'tiny:latest', prompt: 'the agent', stream: false, options });
    const greedy = await ask({ num_predict: 6, temperature: 0 });
    expect(greedy.status).toBe(200);
    expect(greedy.headers['content-type']).toMatch(/application\/json/);
    expect(greedy.body).toMatchObject({ model: 'tiny:latest', done: true, done_reason: 'length', eval_count: 6 });
    expect(greedy.body.response.length).toBeGreaterThan(0);
    expect((await ask({ num_predict: 6, temperature: 0 })).body.response).toBe(greedy.body.response);

    const first = await ask({ num_predict: 10, temperature: 1.5, seed: 7 });
    const again = await ask({ num_predict: 10, temperature: 1.5, seed: 7 });
    expect(again.body.response).toBe(first.body.response);
  });

  it('streams the same text it answers whole', async () => {
    const body = { model: 'tiny', prompt: 'local model', options: { num_predict: 5, temperature: 0 } };
    const whole = await request(h.url)
      .post('/api/generate')
      .set('Authorization', h.user)
      .send({ ...body, stream: false });
    const streamed = await request(h.url).post('/api/generate').set('Authorization', h.user).send(body);
    expect(
      ndjson(streamed.text)
        .map((line) => line.response)
        .join(''),
    ).toBe(whole.body.response);
  });

  it('generates raw completions too', async () => {
    const res = await request(h.url)
      .post('/api/generate')
      .set('Authorization', h.user)
      .send({ model: 'tiny', prompt: 'hello', raw: true, stream: false, options: { num_predict: 4, temperature: 0 } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ done: true, eval_count: 4 });
    // Raw: the prompt's own tokens and BOS, no chat template around them.
    expect(res.body.prompt_eval_count).toBeLessThanOrEqual(3);
  });

  it('loads the model on an empty prompt, as Ollama does', async () => {
    const res = await request(h.url).post('/api/generate').set('Authorization', h.user).send({ model: 'tiny', stream: false });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ model: 'tiny:latest', response: '', done: true, done_reason: 'load' });
  });

  it('chats, streamed and whole, with system and earlier turns', async () => {
    const messages = [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: 'hello world' },
      { role: 'user', content: 'run the model' },
    ];
    const streamed = await request(h.url)
      .post('/api/chat')
      .set('Authorization', h.user)
      .send({ model: 'tiny', messages, options: { num_predict: 5, temperature: 0 } });
    expect(streamed.status).toBe(200);
    const lines = ndjson(streamed.text);
    expect(lines.at(-1)).toMatchObject({ done: true, message: { role: 'assistant', content: '' }, eval_count: 5 });
    expect(lines[0]).toMatchObject({ done: false, message: { role: 'assistant', content: expect.any(String) } });

    const whole = await request(h.url)
      .post('/api/chat')
      .set('Authorization', h.user)
      .send({ model: 'tiny', messages, stream: false, options: { num_predict: 5, temperature: 0 } });
    expect(whole.body.message.content).toBe(lines.map((line) => (line.message as { content: string }).content).join(''));
    expect(whole.body.prompt_eval_count).toBeGreaterThan(5);
  });

  it('embeds one or many inputs into vectors of the model width', async () => {
    const res = await request(h.url)
      .post('/api/embed')
      .set('Authorization', h.user)
      .send({ model: 'tiny', input: ['hello world', 'the agent'] });
    expect(res.status).toBe(200);
    expect(res.body.model).toBe('tiny:latest');
    expect(res.body.embeddings).toHaveLength(2);
    expect(res.body.embeddings[0]).toHaveLength(64);
    expect(res.body.embeddings[0]).not.toEqual(res.body.embeddings[1]);
    expect(res.body.prompt_eval_count).toBeGreaterThan(2);
    const single = await request(h.url).post('/api/embed').set('Authorization', h.user).send({ model: 'tiny', input: 'hello world' });
    expect(single.body.embeddings).toEqual([res.body.embeddings[0]]);
  });

  it('keeps the answer to JSON, or to a JSON schema, with format', async () => {
    const json = await request(h.url)
      .post('/api/generate')
      .set('Authorization', h.user)
      .send({ model: 'tiny', prompt: 'hello', format: 'json', stream: false, options: { num_predict: 30, temperature: 0 } });
    expect(json.status).toBe(200);
    expect(json.body.response).toMatch(/^\s*[{[]/);

    const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };
    const shaped = await request(h.url)
      .post('/api/chat')
      .set('Authorization', h.user)
      .send({ model: 'tiny', messages: [{ role: 'user', content: 'hello' }], format: schema, stream: false, options: { num_predict: 30, temperature: 0 } });
    expect(shaped.status).toBe(200);
    expect(shaped.body.message.content).toMatch(/^\s*\{\s*"answer"\s*:\s*"/);

    // llama.cpp reads odd schemas leniently (unknown parts as "any"); they never fail the server.
    for (const odd of [{ type: 'object', properties: 'oops' }, { $ref: '#/$defs/missing' }, { type: 'nonsense' }]) {
      const res = await request(h.url)
        .post('/api/generate')
        .set('Authorization', h.user)
        .send({ model: 'tiny', prompt: 'hello', format: odd, stream: false, options: { num_predict: 5 } });
      expect([JSON.stringify(odd), res.status < 500]).toEqual([JSON.stringify(odd), true]);
    }
  });

  it('refuses what an embedded model cannot do, and prompts longer than its context', async () => {
    const images = await request(h.url)
      .post('/api/generate')
      .set('Authorization', h.user)
      .send({ model: 'tiny', prompt: 'hi', images: ['aGk='] });
    expect(images.status).toBe(400);
    expect(errorOf(images.body)).toMatchObject({ type: 'validation_error', code: 'invalid_request', details: { unsupported: ['images'] } });

    const long = await request(h.url)
      .post('/api/generate')
      .set('Authorization', h.user)
      .send({ model: 'tiny', prompt: 'hello world '.repeat(400), stream: true });
    expect(long.status).toBe(400);
    expect(errorOf(long.body).message).toMatch(/context/);

    const lastNotUser = await request(h.url)
      .post('/api/chat')
      .set('Authorization', h.user)
      .send({ model: 'tiny', messages: [{ role: 'assistant', content: 'hi' }] });
    expect(lastNotUser.status).toBe(400);

    const tooLong = await request(h.url)
      .post('/api/embed')
      .set('Authorization', h.user)
      .send({ model: 'tiny', input: 'hello world '.repeat(400), truncate: false });
    expect(tooLong.status).toBe(400);
    const truncated = await request(h.url)
      .post('/api/embed')
      .set('Authorization', h.user)
      .send({ model: 'tiny', input: 'hello world '.repeat(400) });
    expect(truncated.status).toBe(200);
  });

  it('runs concurrent generations on the sequences of one context', async () => {
    const answers = await Promise.all(
      [1, 2, 3, 4].map(() =>
        request(h.url)
          .post('/api/generate')
          .set('Authorization', h.user)
          .send({ model: 'tiny', prompt: 'the model', stream: false, options: { num_predict: 4, temperature: 0 } }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    expect(new Set(answers.map((answer) => answer.body.response)).size).toBe(1);
  });
});
