import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { eventually, spawnService, startFakeOllama, uniqueName, type FakeOllama, type ServiceProcess } from '@platform/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import OpenAI, { APIError } from 'openai';
import request from 'supertest';
import { Fakes } from './fakes';
import { startGateway, type Gateway } from './harness';

// The GenAI spans the gateway makes, kept in memory (no SDK runs in tests).
const spans = new InMemorySpanExporter();
trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }));

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * An OpenAI-compatible upstream that fails as asked by the model name: `flaky-500` answers 500,
 * `flaky-slow` says nothing for 4 s, `flaky-400` refuses the request (its own 400).
 */
async function flakyUpstream(): Promise<{ url: string; calls: string[]; server: Server; release: () => void }> {
  const calls: string[] = [];
  // `flaky-stream` sends its first chunk, then holds the rest until the test releases it.
  let release = () => undefined as void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const server = createHttpServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      const model = (JSON.parse(text || '{}') as { model?: string }).model ?? '';
      calls.push(`${req.method} ${req.headers.authorization} ${model}`);
      const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (model === 'flaky-500') return json(500, { error: { message: 'the upstream broke', type: 'server_error', code: null, param: null } });
      if (model === 'flaky-400') return json(400, { error: { message: "'temperature' is too high", type: 'invalid_request_error', code: null, param: 'temperature' } });
      if (model === 'flaky-slow') return void setTimeout(() => json(200, {}), 4000);
      if (model === 'flaky-stream') {
        const event = (body: object) => res.write(`data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model, ...body })}\n\n`);
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        event({ choices: [{ index: 0, delta: { role: 'assistant', content: 'first' }, finish_reason: null }] });
        return void held.then(() => {
          event({ choices: [{ index: 0, delta: { content: ' second' }, finish_reason: 'stop' }] });
          event({ choices: [], usage: { prompt_tokens: 4, completion_tokens: 2, total_tokens: 6 } });
          res.end('data: [DONE]\n\n');
        });
      }
      json(404, { error: { message: 'unknown', type: 'invalid_request_error', code: 'model_not_found', param: 'model' } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`, calls, server, release: () => release() };
}

const caught = <T>(promise: Promise<T>) => promise.then(() => undefined, (error: unknown) => error as APIError);
const PERMISSIONS = ['models:read', 'models:invoke'];

/**
 * The gateway as the platform's model endpoint, with the `openai` client, against a real
 * local-models process (its Ollama backend a fake) and a configured upstream that is down.
 */
describe('the model route: OpenAI API at the gateway', () => {
  let g: Gateway;
  let localModels: ServiceProcess;
  let ollama: FakeOllama;
  let modelsDir: string;
  let flaky: Awaited<ReturnType<typeof flakyUpstream>>;
  const clientFor = (sub: string, permissions = PERMISSIONS) =>
    new OpenAI({ baseURL: `${g.service.url}/v1`, apiKey: g.issuer.bearer(permissions, { sub }).replace(/^Bearer /, ''), maxRetries: 0 });
  const admin = () => g.issuer.bearer(['gateway:admin'], { sub: 'model-admin' });

  beforeAll(async () => {
    const fakes = await new Fakes().start();
    ollama = await startFakeOllama();
    modelsDir = mkdtempSync(path.join(tmpdir(), 'gateway-models-'));
    localModels = await spawnService('local-models', {
      env: {
        AUTH_URL: new URL(fakes.issuer.jwksUri).origin,
        AUTH_ISSUER: fakes.issuer.issuer,
        AUTH_AUDIENCE: fakes.issuer.audience,
        OLLAMA_URL: ollama.url,
        OLLAMA_TAGS_TTL_MS: '1',
        LOCAL_MODELS_DIR: modelsDir,
        LOCAL_MODELS_RATE_LIMIT: '100000',
        LOCAL_MODELS_RATE_LIMIT_BURST: '100000',
      },
      timeoutMs: 90_000,
    });
    const down = `http://127.0.0.1:${await closedPort()}/v1`;
    flaky = await flakyUpstream();
    // apiKeyEnv names a variable of the process environment, where an operator keeps the secret.
    process.env.FLAKY_UPSTREAM_KEY = 'sk-flaky-secret';
    g = await startGateway(
      {
        LOCAL_MODELS_URL: localModels.url,
        GATEWAY_MODEL_UPSTREAMS: JSON.stringify([
          { name: 'remote', url: down, apiKey: 'sk-remote', system: 'openai', models: [{ name: 'gpt-big', fallbacks: ['llama3.2'] }, 'gpt-*'] },
          {
            name: 'flaky',
            url: flaky.url,
            apiKeyEnv: 'FLAKY_UPSTREAM_KEY',
            models: [
              { name: 'flaky-500', fallbacks: ['llama3.2'] },
              { name: 'flaky-slow', fallbacks: ['llama3.2'] },
              { name: 'flaky-400', fallbacks: ['llama3.2'] },
              'flaky-stream',
            ],
          },
        ]),
        GATEWAY_MODEL_TIMEOUT_MS: '3000',
        GATEWAY_MODEL_PRICES: JSON.stringify({ 'llama3.2': { input: 1, output: 2 } }),
      },
      fakes,
    );
  }, 120_000);
  afterAll(async () => {
    await g?.stop();
    await localModels?.stop();
    await ollama?.stop();
    flaky?.server.close();
    rmSync(modelsDir, { recursive: true, force: true });
  });

  it('answers a chat whole through local-models, and traces it as a GenAI span', async () => {
    spans.reset();
    const sub = uniqueName('user');
    const { data, response } = await clientFor(sub)
      .chat.completions.create({ model: 'llama3.2', messages: [{ role: 'user', content: 'hello there' }], max_tokens: 10, temperature: 0.5 })
      .withResponse();
    expect(data.choices[0].message.content).toBe('echo: hello there');
    expect(data.model).toBe('llama3.2:latest');
    expect(data.usage).toEqual({ prompt_tokens: 2, completion_tokens: 3, total_tokens: 5 });
    expect(response.headers.get('x-platform-upstream')).toBe('local-models');
    expect(response.headers.get('x-platform-fallback')).toBeNull();
    // local-models recorded the call as the caller's, under the gateway's request id.
    const requestId = response.headers.get('x-request-id');
    const usage = await eventually(async () => {
      const res = await request(localModels.url).get('/usage').set('Authorization', g.issuer.bearer(['models:read'], { sub }));
      return res.body.items?.find((item: { requestId: string }) => item.requestId === requestId);
    });
    expect(usage).toMatchObject({ endpoint: 'chat.completions', model: 'llama3.2:latest', promptTokens: 2, completionTokens: 3 });

    const span = await eventually(() => spans.getFinishedSpans().find((finished) => finished.name === 'chat llama3.2'));
    expect(span.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.system': 'local-models',
      'gen_ai.request.model': 'llama3.2',
      'gen_ai.request.max_tokens': 10,
      'gen_ai.request.temperature': 0.5,
      'gen_ai.response.model': 'llama3.2:latest',
      'gen_ai.usage.input_tokens': 2,
      'gen_ai.usage.output_tokens': 3,
      // (2 × 1 + 3 × 2) / 1000 from GATEWAY_MODEL_PRICES.
      'gen_ai.usage.cost': 0.008,
    });
  });

  it('streams a chat through unbuffered, and counts its tokens from the usage chunk', async () => {
    const sub = uniqueName('streamer');
    const stream = await clientFor(sub).chat.completions.create({ model: 'llama3.2', messages: [{ role: 'user', content: 'one two three' }], stream: true });
    let text = '';
    const chunks = [];
    for await (const chunk of stream) {
      chunks.push(chunk);
      text += chunk.choices[0]?.delta.content ?? '';
    }
    expect(text).toBe('echo: one two three');
    expect(chunks.length).toBeGreaterThan(3);
    // The gateway asks local-models for the usage chunk to count the tokens, and keeps it to itself.
    expect(chunks.every((chunk) => chunk.choices.length === 1)).toBe(true);
    expect(chunks.at(-1)!.choices[0].finish_reason).toBe('stop');

    const usage = await eventually(async () => {
      const res = await request(g.app).get(`/api/v1/model-access/${sub}`).set('Authorization', admin());
      return res.body.usage?.totalTokens === 7 ? res.body : undefined;
    });
    expect(usage).toMatchObject({ subject: sub, models: ['*'], monthlyTokenBudget: null, usage: { promptTokens: 3, completionTokens: 4, requests: 1 } });

    // A caller that asks for the usage chunk gets it, last.
    const asked = await clientFor(sub).chat.completions.create({
      model: 'llama3.2',
      messages: [{ role: 'user', content: 'four five' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const all = [];
    for await (const chunk of asked) all.push(chunk);
    expect(all.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 2, completion_tokens: 3, total_tokens: 5 } });
  });

  it("passes a stream's chunks on as they come: the first arrives while the upstream still holds the rest", async () => {
    const sub = uniqueName('streamer');
    const stream = await clientFor(sub).chat.completions.create({ model: 'flaky-stream', messages: [{ role: 'user', content: 'hold on' }], stream: true });
    const chunks = stream[Symbol.asyncIterator]();
    expect((await chunks.next()).value.choices[0].delta.content).toBe('first');
    flaky.release();
    const rest = [];
    for (let next = await chunks.next(); !next.done; next = await chunks.next()) rest.push(next.value);
    expect(rest.map((chunk) => chunk.choices[0]?.delta.content)).toEqual([' second']);
    const view = await eventually(async () => {
      const res = await request(g.app).get(`/api/v1/model-access/${sub}`).set('Authorization', admin());
      return res.body.usage?.totalTokens === 6 ? res.body : undefined;
    });
    expect(view.usage).toMatchObject({ promptTokens: 4, completionTokens: 2 });
  });

  it('embeds through local-models, with an API key as the credential', async () => {
    g.fakes.apiKeys.set('sk-platform-embedder-1', { sub: 'service:embedder', permissions: PERMISSIONS });
    const client = new OpenAI({ baseURL: `${g.service.url}/v1`, apiKey: 'sk-platform-embedder-1', maxRetries: 0 });
    const answer = await client.embeddings.create({ model: 'nomic-embed-text', input: ['a b', 'c'], encoding_format: 'float' });
    expect(answer.data.map((item) => item.embedding)).toEqual([
      [3, 2, 0.5, -0.5],
      [1, 1, 0.5, -0.5],
    ]);
    expect(answer.usage.prompt_tokens).toBe(3);
  });

  it('lists only the models a caller is allowed, and refuses the others with 403 model_not_allowed', async () => {
    const sub = uniqueName('limited');
    const everything = await clientFor(uniqueName('free')).models.list();
    expect(everything.data.map((model) => model.id)).toEqual(['llama3.2:latest', 'nomic-embed-text:latest']);

    const set = await request(g.app).put(`/api/v1/model-access/${sub}`).set('Authorization', admin()).send({ models: ['llama3.2*'] });
    expect(set.status).toBe(200);
    const client = clientFor(sub);
    expect((await client.models.list()).data.map((model) => model.id)).toEqual(['llama3.2:latest']);
    const refused = await caught(client.embeddings.create({ model: 'nomic-embed-text', input: 'x' }));
    expect(refused).toBeInstanceOf(APIError);
    expect(refused).toMatchObject({ status: 403, code: 'model_not_allowed', param: 'model', type: 'permission_error' });
    expect(refused!.message).toContain("The model 'nomic-embed-text' is not allowed");
  });

  it('answers 429 budget_exceeded once the monthly token budget is spent', async () => {
    const sub = uniqueName('budget');
    await request(g.app).put(`/api/v1/model-access/${sub}`).set('Authorization', admin()).send({ models: ['*'], monthlyTokenBudget: 10 }).expect(200);
    const client = clientFor(sub);
    // 6 prompt + 7 completion tokens: past the budget of 10 after this call.
    const first = await client.chat.completions.create({ model: 'llama3.2', messages: [{ role: 'user', content: 'one two three four five six' }] });
    expect(first.usage!.total_tokens).toBe(13);
    const spent = await caught(client.chat.completions.create({ model: 'llama3.2', messages: [{ role: 'user', content: 'more' }] }));
    expect(spent).toMatchObject({ status: 429, code: 'budget_exceeded', type: 'rate_limit_error' });
    expect(spent!.message).toMatch(/monthly token budget of .* is spent: 13 of 10 tokens/);

    const view = await request(g.app).get(`/api/v1/model-access/${sub}`).set('Authorization', g.issuer.bearer([], { sub }));
    expect(view.body).toMatchObject({ monthlyTokenBudget: 10, usage: { totalTokens: 13, remainingTokens: 0 } });
  });

  it("falls back to the next model when the first one's upstream is down, and says which answered", async () => {
    spans.reset();
    const { data, response } = await clientFor(uniqueName('user'))
      .chat.completions.create({ model: 'gpt-big', messages: [{ role: 'user', content: 'are you there' }] })
      .withResponse();
    expect(data.model).toBe('llama3.2:latest');
    expect(data.choices[0].message.content).toBe('echo: are you there');
    expect(response.headers.get('x-platform-fallback')).toBe('llama3.2');
    const span = await eventually(() => spans.getFinishedSpans().find((finished) => finished.name === 'chat gpt-big'));
    expect(span.attributes).toMatchObject({ 'gen_ai.request.model': 'gpt-big', 'gen_ai.response.model': 'llama3.2:latest', 'platform.model.fallback': true });

    // A caller's own fallbacks (its access record) are tried too.
    const sub = uniqueName('own-fallback');
    await request(g.app)
      .put(`/api/v1/model-access/${sub}`)
      .set('Authorization', admin())
      .send({ models: ['gpt-*', 'nomic*'], fallbacks: { 'gpt-small': ['nomic-embed-text'] } })
      .expect(200);
    const embedded = await clientFor(sub)
      .embeddings.create({ model: 'gpt-small', input: 'a', encoding_format: 'float' })
      .withResponse();
    expect(embedded.data.model).toBe('nomic-embed-text:latest');
    expect(embedded.response.headers.get('x-platform-fallback')).toBe('nomic-embed-text');

    // No fallback left: 502 naming the upstream that failed.
    const failed = await caught(clientFor(uniqueName('user')).chat.completions.create({ model: 'gpt-other', messages: [{ role: 'user', content: 'x' }] }));
    expect(failed).toMatchObject({ status: 502, code: 'upstream_error', type: 'server_error' });
    expect(failed!.message).toMatch(/gpt-other at remote: remote cannot be reached/);
  });

  it("falls back on an upstream's 5xx and silence, and passes its 4xx through, with its own key", async () => {
    const client = clientFor(uniqueName('user'));
    for (const model of ['flaky-500', 'flaky-slow']) {
      const { data, response } = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'still there' }] }).withResponse();
      expect([model, data.model, response.headers.get('x-platform-fallback')]).toEqual([model, 'llama3.2:latest', 'llama3.2']);
    }
    const refused = await caught(client.chat.completions.create({ model: 'flaky-400', messages: [{ role: 'user', content: 'x' }] }));
    expect(refused).toMatchObject({ status: 400, param: 'temperature' });
    expect(refused!.message).toContain("'temperature' is too high");
    // The upstream got its key (from FLAKY_UPSTREAM_KEY), never the caller's token.
    expect(flaky.calls.filter((call) => call.startsWith('POST') && !call.endsWith('flaky-stream'))).toEqual([
      'POST Bearer sk-flaky-secret flaky-500',
      'POST Bearer sk-flaky-secret flaky-slow',
      'POST Bearer sk-flaky-secret flaky-400',
    ]);
    expect(flaky.calls.every((call) => call.includes('Bearer sk-flaky-secret'))).toBe(true);
  }, 20_000);

  it('refuses callers without a credential or the permission, in OpenAI shape', async () => {
    const anonymous = await request(g.app).post('/v1/chat/completions').send({ model: 'llama3.2', messages: [{ role: 'user', content: 'x' }] });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error).toMatchObject({ type: 'authentication_error', code: 'invalid_token' });
    const badKey = await caught(new OpenAI({ baseURL: `${g.service.url}/v1`, apiKey: 'sk-nobody-has-this', maxRetries: 0 }).models.list());
    expect(badKey).toMatchObject({ status: 401, code: 'invalid_api_key' });
    const reader = await caught(clientFor(uniqueName('reader'), ['models:read']).chat.completions.create({ model: 'llama3.2', messages: [{ role: 'user', content: 'x' }] }));
    expect(reader).toMatchObject({ status: 403, code: 'insufficient_permissions' });
    const invalid = await caught(clientFor(uniqueName('user')).chat.completions.create({ model: 'llama3.2', messages: [] }));
    expect(invalid).toMatchObject({ status: 400, type: 'invalid_request_error', param: 'messages' });
    const unknown = await caught(clientFor(uniqueName('user')).chat.completions.create({ model: 'nope', messages: [{ role: 'user', content: 'x' }] }));
    expect(unknown).toMatchObject({ status: 404, code: 'model_not_found' });
  });

  it('lets only gateway:admin set access, and validates it', async () => {
    const sub = uniqueName('subject');
    const user = g.issuer.bearer(PERMISSIONS, { sub });
    expect((await request(g.app).put(`/api/v1/model-access/${sub}`).set('Authorization', user).send({ models: ['*'] })).status).toBe(403);
    const other = await request(g.app).get(`/api/v1/model-access/${uniqueName('other')}`).set('Authorization', user);
    expect(other.status).toBe(403);
    const bad = await request(g.app).put(`/api/v1/model-access/${sub}`).set('Authorization', admin()).send({ models: ['a b'], monthlyTokenBudget: -1 });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues.map((issue: { path: string }) => issue.path)).toEqual(['body.models.0', 'body.monthlyTokenBudget']);
    expect((await request(g.app).delete(`/api/v1/model-access/${sub}`).set('Authorization', admin())).status).toBe(404);
    await request(g.app).put(`/api/v1/model-access/${sub}`).set('Authorization', admin()).send({ models: [] }).expect(200);
    expect((await caught(clientFor(sub).models.list()))).toBeUndefined();
    expect((await clientFor(sub).models.list()).data).toEqual([]);
    expect((await request(g.app).delete(`/api/v1/model-access/${sub}`).set('Authorization', admin())).status).toBe(204);
    expect((await clientFor(sub).models.list()).data).toHaveLength(2);
  });
});
