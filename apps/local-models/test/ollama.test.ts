import request from 'supertest';
import { ndjson, startHarness, type Harness, errorOf } from './support/harness';

/** The Ollama backend against a fake Ollama server started here. */
describe('models of an Ollama server', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.stop());
  beforeEach(() => {
    h.ollama!.mode = 'ok';
    h.ollama!.requests.length = 0;
  });

  it("lists Ollama's models beside the embedded ones", async () => {
    const res = await request(h.url).get('/api/tags').set('Authorization', h.reader);
    expect(res.status).toBe(200);
    expect(res.body.models.map((model: { name: string; backend: string }) => [model.name, model.backend])).toEqual([
      ['tiny:latest', 'embedded'],
      ['llama3.2:latest', 'ollama'],
      ['nomic-embed-text:latest', 'ollama'],
    ]);
    expect(res.body.models[1]).toMatchObject({
      size: 1_000_000,
      digest: expect.stringMatching(/^sha256-/),
      details: { family: 'llama', quantization_level: 'Q4_K_M' },
    });
  });

  it('passes a streamed generation through line by line, request unchanged', async () => {
    const body = { model: 'llama3.2', prompt: 'tell me three words', options: { num_predict: 3, temperature: 0.2, mirostat: 1 }, keep_alive: '5m' };
    const res = await request(h.url).post('/api/generate').set('Authorization', h.user).send(body);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/application\/x-ndjson/);
    const lines = ndjson(res.text);
    expect(lines.map((line) => line.response)).toEqual(['echo:', ' tell', ' me', '']);
    expect(lines.at(-1)).toMatchObject({ done: true, done_reason: 'stop', prompt_eval_count: 4, eval_count: 3 });
    const sent = h.ollama!.requests.find((call) => call.path === '/api/generate');
    // Unknown options and fields reach Ollama untouched; the caller's token does not.
    expect(sent?.body).toEqual(body);
    expect(sent?.headers.authorization).toBeUndefined();
  });

  it('answers whole with stream false, and chats and embeds through Ollama', async () => {
    const whole = await request(h.url).post('/api/generate').set('Authorization', h.user).send({ model: 'llama3.2:latest', prompt: 'hi there', stream: false });
    expect(whole.status).toBe(200);
    expect(whole.body).toMatchObject({ model: 'llama3.2:latest', response: 'echo: hi there', done: true, eval_count: 3 });

    const chat = await request(h.url)
      .post('/api/chat')
      .set('Authorization', h.user)
      .send({ model: 'llama3.2', messages: [{ role: 'user', content: 'ping' }], stream: false, tools: [{ type: 'function', function: { name: 'x' } }] });
    expect(chat.status).toBe(200);
    expect(chat.body.message).toEqual({ role: 'assistant', content: 'echo: ping' });

    const embed = await request(h.url)
      .post('/api/embed')
      .set('Authorization', h.user)
      .send({ model: 'nomic-embed-text', input: ['a b', 'c'] });
    expect(embed.status).toBe(200);
    expect(embed.body.embeddings).toEqual([
      [3, 2, 0.5, -0.5],
      [1, 1, 0.5, -0.5],
    ]);
  });

  it('says 404 with the available models for a model nobody has', async () => {
    const res = await request(h.url).post('/api/generate').set('Authorization', h.user).send({ model: 'mistral:7b', prompt: 'hi' });
    expect(res.status).toBe(404);
    expect(errorOf(res.body)).toMatchObject({ type: 'not_found_error', code: 'not_found', message: "Model 'mistral:7b' not found" });
    expect(errorOf(res.body).details.available).toEqual(['tiny:latest', 'llama3.2:latest', 'nomic-embed-text:latest']);
  });

  it('finds a model pulled into Ollama after the last listing', async () => {
    h.ollama!.models.push({ name: 'qwen3:0.6b' });
    try {
      const res = await request(h.url).post('/api/generate').set('Authorization', h.user).send({ model: 'qwen3:0.6b', prompt: 'new', stream: false });
      expect(res.status).toBe(200);
      expect(res.body.response).toBe('echo: new');
    } finally {
      h.ollama!.models.pop();
    }
  });

  it('turns Ollama failures into 502 upstream_error naming it, and its refusals into 400', async () => {
    await request(h.url).get('/api/tags').set('Authorization', h.reader); // listing cached while Ollama is well
    const refused = await request(h.url)
      .post('/api/generate')
      .set('Authorization', h.user)
      .send({ model: 'llama3.2', prompt: 'hi', options: { temperature: 3 } });
    expect(refused.status).toBe(400);
    expect(errorOf(refused.body).message).toMatch(/Ollama refused the request: invalid option temperature/);

    h.ollama!.mode = 'error';
    const failed = await request(h.url).post('/api/generate').set('Authorization', h.user).send({ model: 'llama3.2', prompt: 'hi' });
    expect(failed.status).toBe(502);
    expect(errorOf(failed.body)).toMatchObject({ type: 'api_error', code: 'upstream_error', details: { dependency: 'ollama' } });

    // The embedded models are still listed, with the reason Ollama's are missing.
    const tags = await request(h.url).get('/api/tags').set('Authorization', h.reader);
    expect(tags.status).toBe(200);
    expect(tags.body.models.map((model: { name: string }) => model.name)).toEqual(['tiny:latest']);
    expect(tags.body.unavailable).toEqual([{ backend: 'ollama', message: expect.stringMatching(/Ollama answered 500/) }]);
    const ready = await request(h.url).get('/health/ready');
    expect(ready.status).toBe(503);
    expect(ready.body.dependencies.ollama).toBe('down');
  });

  it("ends a stream that breaks off with Ollama's error line", async () => {
    h.ollama!.mode = 'break';
    const res = await request(h.url).post('/api/generate').set('Authorization', h.user).send({ model: 'llama3.2', prompt: 'one two three' });
    expect(res.status).toBe(200);
    const lines = ndjson(res.text);
    expect(lines[0]).toMatchObject({ response: 'echo:', done: false });
    expect(lines.at(-1)).toEqual({ error: expect.stringMatching(/Ollama backend stopped answering/) });
  });
});

describe('an Ollama server that is down', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    await h.ollama!.stop();
  });
  afterAll(() => h.stop());

  it('still serves the embedded models, and says 502 for the rest', async () => {
    const tags = await request(h.url).get('/api/tags').set('Authorization', h.reader);
    expect(tags.status).toBe(200);
    expect(tags.body.unavailable[0].message).toMatch(/cannot be reached/);

    const embedded = await request(h.url)
      .post('/api/generate')
      .set('Authorization', h.user)
      .send({ model: 'tiny', prompt: 'hello', stream: false, options: { num_predict: 2 } });
    expect(embedded.status).toBe(200);

    const other = await request(h.url).post('/api/generate').set('Authorization', h.user).send({ model: 'llama3.2', prompt: 'hello' });
    expect(other.status).toBe(502);
    expect(errorOf(other.body)).toMatchObject({ code: 'upstream_error', details: { dependency: 'ollama', reason: 'unreachable' } });
    expect(errorOf(other.body).message).toMatch(/not a local file and Ollama cannot be asked/);

    const health = await request(h.url).get('/health');
    expect(health.status).toBe(503);
    expect(health.body.dependencies).toMatchObject({ cache: 'up', ollama: 'down' });
    expect(health.body.backends.embedded).toMatchObject({ models: 1 });
  });
});

describe('an Ollama server that is too slow', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ env: { OLLAMA_TIMEOUT: '1' } });
  });
  afterAll(() => h.stop());

  it('gives up after OLLAMA_TIMEOUT of silence with 502 reason timeout', async () => {
    await request(h.url).get('/api/tags').set('Authorization', h.reader); // known before it slows down
    h.ollama!.delayMs = 1500;
    const res = await request(h.url)
      .post('/invoke')
      .set('Authorization', h.user)
      .send({ tool: 'generate', input: { prompt: 'hi', model: 'llama3.2:latest' } });
    h.ollama!.delayMs = 0;
    expect(res.status).toBe(502);
    expect(errorOf(res.body)).toMatchObject({ code: 'upstream_error', details: { dependency: 'ollama', reason: 'timeout' } });
  });
});
