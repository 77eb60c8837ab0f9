import { Ollama } from 'ollama';
import { startHarness, type Harness } from './support/harness';

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
    expect(error).toMatchObject({ name: 'ResponseError', status_code: 404 });
    expect((error as { error: { details: { available: string[] } } }).error.details.available).toContain('tiny:latest');

    const anonymous = new Ollama({ host: h.url });
    await expect(anonymous.list()).rejects.toMatchObject({ status_code: 401 });
  });
});
