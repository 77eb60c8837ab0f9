import request from 'supertest';
import { startHarness, type Harness, errorOf } from './support/harness';

describe('/tools and /invoke', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ env: { LOCAL_MODELS_PRICES: JSON.stringify({ llama3: { input: 0.5, output: 1.5 }, 'tiny:latest': 9 }) } });
  });
  afterAll(() => h.stop());

  it('lists the tools and every model with its price', async () => {
    const res = await request(h.url).get('/tools').set('Authorization', h.reader);
    expect(res.status).toBe(200);
    expect(res.body.tools.map((tool: { name: string }) => tool.name)).toEqual(['generate', 'chat', 'embed']);
    expect(res.body.tools[0].inputSchema).toMatchObject({ type: 'object', required: expect.arrayContaining(['prompt', 'model']) });
    expect(res.body.models).toEqual([
      { name: 'tiny:latest', backend: 'embedded', pricePer1kTokens: { input: 0, output: 0 } },
      { name: 'llama3.2:latest', backend: 'ollama', pricePer1kTokens: { input: 0, output: 0 } },
      { name: 'nomic-embed-text:latest', backend: 'ollama', pricePer1kTokens: { input: 0, output: 0 } },
    ]);
  });

  it('invokes an embedded model: output, real token counts, cost 0, duration', async () => {
    const res = await request(h.url)
      .post('/invoke')
      .set('Authorization', h.user)
      .send({ tool: 'generate', input: { prompt: 'hello world', model: 'tiny', options: { num_predict: 5, temperature: 0 } } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      result: { output: expect.any(String), model: 'tiny:latest' },
      cost: 0,
      backend: 'embedded',
      usage: { completionTokens: 5 },
    });
    expect(res.body.result.output.length).toBeGreaterThan(0);
    expect(res.body.usage.promptTokens).toBeGreaterThan(2);
    expect(res.body.duration).toBeGreaterThan(0);

    const embed = await request(h.url)
      .post('/invoke')
      .set('Authorization', h.user)
      .send({ tool: 'embed', input: { prompt: 'hello', model: 'tiny' } });
    expect(embed.status).toBe(200);
    expect(embed.body.result.output).toHaveLength(64);
    expect(embed.body.cost).toBe(0);
  });

  it('prices an Ollama model from the configured table per 1,000 tokens', async () => {
    h.ollama!.models.push({ name: 'llama3:latest' });
    try {
      const res = await request(h.url)
        .post('/invoke')
        .set('Authorization', h.user)
        .send({ tool: 'chat', input: { prompt: 'one two three four', model: 'llama3', system: 'be brief' } });
      expect(res.status).toBe(200);
      // The fake counts words: prompt "be brief one two three four" = 6, answer "echo: be brief one two three four" = 7.
      expect(res.body).toMatchObject({
        result: { output: 'echo: be brief one two three four', model: 'llama3:latest' },
        backend: 'ollama',
        usage: { promptTokens: 6, completionTokens: 7, totalTokens: 13 },
      });
      expect(res.body.cost).toBeCloseTo((6 * 0.5 + 7 * 1.5) / 1000, 10);
      const sent = h.ollama!.requests.filter((call) => call.path === '/api/chat').at(-1);
      expect(sent?.body).toMatchObject({
        stream: false,
        messages: [
          { role: 'system', content: 'be brief' },
          { role: 'user', content: 'one two three four' },
        ],
      });

      const generate = await request(h.url)
        .post('/invoke')
        .set('Authorization', h.user)
        .send({ tool: 'generate', input: { prompt: 'hi', model: 'llama3:latest' } });
      expect(generate.body.result.output).toBe('echo: hi');
      expect(generate.body.cost).toBeCloseTo((1 * 0.5 + 2 * 1.5) / 1000, 10);
    } finally {
      h.ollama!.models.pop();
    }
  });

  it('rejects bad input with the validation error, and unknown models with the available ones', async () => {
    const unknownTool = await request(h.url)
      .post('/invoke')
      .set('Authorization', h.user)
      .send({ tool: 'draw', input: { prompt: 'x', model: 'tiny' } });
    expect(unknownTool.status).toBe(400);
    expect(errorOf(unknownTool.body).details.issues).toEqual([expect.objectContaining({ path: 'body.tool' })]);

    const missing = await request(h.url)
      .post('/invoke')
      .set('Authorization', h.user)
      .send({ tool: 'generate', input: { model: 'tiny' } });
    expect(missing.status).toBe(400);
    expect(errorOf(missing.body).details.issues).toEqual([expect.objectContaining({ path: 'body.input.prompt' })]);

    const unknownModel = await request(h.url)
      .post('/invoke')
      .set('Authorization', h.user)
      .send({ tool: 'generate', input: { prompt: 'x', model: 'gpt-5' } });
    expect(unknownModel.status).toBe(404);
    expect(errorOf(unknownModel.body).details.available).toEqual(['tiny:latest', 'llama3.2:latest', 'nomic-embed-text:latest']);
  });
});
