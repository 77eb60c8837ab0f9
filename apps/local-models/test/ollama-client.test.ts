import { eventually } from '@platform/testing';
import { Ollama } from 'ollama';
import request from 'supertest';
import { startHarness, type Harness, errorOf } from './support/harness';

/** The `ollama` npm client, unchanged, against the service: the bearer token rides in its `headers` option. */
describe('the ollama npm client against the service', () => {
  let h: Harness;
  let client: Ollama;
  beforeAll(async () => {
    h = await startHarness();
    client = new Ollama({ host: h.url, headers: { Authorization: h.user } });
  });
  afterAll(() => h.stop());

  it('lists the models of both backends', async () => {
    const { models } = await client.list();
    expect(models.map((model) => model.name)).toEqual(['tiny:latest', 'llama3.2:latest', 'nomic-embed-text:latest']);
    expect(models[0].details.format).toBe('gguf');
  });

  it('streams a generation from the embedded model', async () => {
    const stream = await client.generate({ model: 'tiny', prompt: 'hello world', stream: true, options: { num_predict: 6, temperature: 0 } });
    const parts: string[] = [];
    let last;
    for await (const part of stream) {
      parts.push(part.response ?? '');
      last = part;
    }
    expect(parts.length).toBeGreaterThan(1);
    expect(last).toMatchObject({ done: true, eval_count: 6 });
    const whole = await client.generate({ model: 'tiny', prompt: 'hello world', options: { num_predict: 6, temperature: 0 } });
    expect(whole.response).toBe(parts.join(''));
    expect(whole.prompt_eval_count).toBeGreaterThan(0);
  });

  it('chats with both backends and embeds', async () => {
    const local = await client.chat({ model: 'tiny', messages: [{ role: 'user', content: 'hello' }], options: { num_predict: 3, temperature: 0 } });
    expect(local.message.role).toBe('assistant');
    expect(local.eval_count).toBe(3);

    const remote = await client.chat({ model: 'llama3.2', messages: [{ role: 'user', content: 'hi' }], stream: true });
    let text = '';
    for await (const part of remote) text += part.message.content;
    expect(text).toBe('echo: hi');

    const embedded = await client.embed({ model: 'tiny', input: 'hello world' });
    expect(embedded.embeddings[0]).toHaveLength(64);
  });

  it('gets the 404 with the available models, and 401 without a token', async () => {
    const error = await client.generate({ model: 'nope', prompt: 'hi' }).catch((caught: unknown) => caught);
    // Ollama's error shape, so the client's message is the text (not `[object Object]`).
    expect(error).toMatchObject({ name: 'ResponseError', status_code: 404, error: "Model 'nope' not found", message: "Model 'nope' not found" });

    const raw = await request(h.url).post('/api/generate').set('Authorization', h.user).send({ model: 'nope', prompt: 'hi' });
    expect(raw.body).toMatchObject({ error: "Model 'nope' not found", code: 'not_found', details: { available: expect.arrayContaining(['tiny:latest']) } });
    expect(raw.headers['x-error-code']).toBe('not_found');
    expect(raw.headers['x-request-id']).toBe(raw.body.requestId);

    const anonymous = new Ollama({ host: h.url });
    await expect(anonymous.list()).rejects.toMatchObject({ status_code: 401 });
  });
});

describe('the rest of the Ollama API the client uses', () => {
  let h: Harness;
  let client: Ollama;
  beforeAll(async () => {
    h = await startHarness();
    client = new Ollama({ host: h.url, headers: { Authorization: h.user } });
  });
  afterAll(() => h.stop());

  it('shows a GGUF model from its header, and an Ollama model from Ollama', async () => {
    const local = await client.show({ model: 'tiny' });
    expect(local.details).toMatchObject({ format: 'gguf', family: 'llama' });
    expect(local.model_info).toMatchObject({
      'general.architecture': 'llama',
      'llama.embedding_length': 64,
      'llama.block_count': 2,
      'tokenizer.ggml.model': 'llama',
    });
    expect(local.model_info).not.toHaveProperty(['tokenizer.ggml.tokens']);
    const remote = await client.show({ model: 'llama3.2' });
    expect(remote.template).toBe('{{ .Prompt }}');
    await expect(client.show({ model: 'nope' })).rejects.toMatchObject({ status_code: 404 });
  });

  it("lists the models in memory: the embedded ones once used, and Ollama's", async () => {
    const before = await client.ps();
    expect(before.models.map((model) => model.name)).toEqual(['llama3.2:latest']);
    await client.generate({ model: 'tiny', prompt: '' }); // loads it
    const after = await client.ps();
    expect(after.models.map((model) => model.name)).toEqual(['tiny:latest', 'llama3.2:latest']);
    expect(after.models[0].size).toBeGreaterThan(500_000);
  });

  it('answers the version probe', async () => {
    expect(await client.version()).toEqual({ version: '0.12.0' });
  });
});

describe('a client that goes away', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ ollama: false, env: { LOCAL_MODELS_PARALLEL: '1', LOCAL_MODELS_QUEUE: '1', LOCAL_MODELS_MAX_PREDICT: '200000' } });
  });
  afterAll(() => h.stop());

  it('stops its generation and frees the model for the next caller', async () => {
    const client = new Ollama({ host: h.url, headers: { Authorization: h.user } });
    const stream = await client.generate({ model: 'tiny', prompt: 'hello', stream: true, options: { num_predict: -1, temperature: 0 } });
    const iterator = stream[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toMatchObject({ done: false });

    // The one sequence is busy: one request may wait for it, the next is refused with 503.
    const waiting = client.generate({ model: 'tiny', prompt: 'the', options: { num_predict: 2, temperature: 0 } });
    await eventually(async () => (await request(h.url).get('/health')).body.backends.embedded.waiting === 1);
    const refused = await request(h.url).post('/api/generate').set('Authorization', h.user).send({ model: 'tiny', prompt: 'hi', stream: false });
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(errorOf(refused.body)).toMatchObject({ code: 'service_unavailable', details: { busy: 'tiny:latest' } });

    stream.abort();
    await expect(iterator.next()).rejects.toMatchObject({ name: 'AbortError' });
    expect((await waiting).eval_count).toBe(2);
    // With one sequence, this waits for the aborted generation to give it back: had it gone on to its
    // 200,000 tokens, the test would time out.
    const next = await client.generate({ model: 'tiny', prompt: 'hello', options: { num_predict: 2, temperature: 0 } });
    expect(next.eval_count).toBe(2);
  });

  it('leaves the queue when it goes away while waiting, so its place goes to the next caller', async () => {
    const client = new Ollama({ host: h.url, headers: { Authorization: h.user } });
    const stream = await client.generate({ model: 'tiny', prompt: 'hello', stream: true, options: { num_predict: -1, temperature: 0 } });
    const iterator = stream[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toMatchObject({ done: false });

    // The one queue place is taken by a caller that then hangs up before its turn.
    const leaving = new AbortController();
    const left = fetch(`${h.url}/api/generate`, {
      method: 'POST',
      headers: { Authorization: h.user, 'Content-Type': 'application/json' },
      body: JSON.stringify({ model: 'tiny', prompt: 'the', stream: false, options: { num_predict: 2 } }),
      signal: leaving.signal,
    }).catch((error: unknown) => error);
    await eventually(async () => (await request(h.url).get('/health')).body.backends.embedded.waiting === 1);
    leaving.abort();
    expect(await left).toMatchObject({ name: 'AbortError' });
    await eventually(async () => (await request(h.url).get('/health')).body.backends.embedded.waiting === 0);

    // Its place is free again: the next caller waits (instead of a 503) and is served once the stream ends.
    const waiting = client.generate({ model: 'tiny', prompt: 'the', options: { num_predict: 2, temperature: 0 } });
    await eventually(async () => (await request(h.url).get('/health')).body.backends.embedded.waiting === 1);
    stream.abort();
    await expect(iterator.next()).rejects.toMatchObject({ name: 'AbortError' });
    expect((await waiting).eval_count).toBe(2);
  });
});
