import { LocalModelsClient } from '@platform/clients';
import { eventually } from '@platform/testing';
import OpenAI, { APIError } from 'openai';
import request from 'supertest';
import { startHarness, type Harness } from './support/harness';

/** The official `openai` npm client (v6), unchanged, against the service's `/v1`: the platform token is its API key. */
describe('the openai npm client against local-models', () => {
  let h: Harness;
  let client: OpenAI;
  const tokenOf = (bearer: string) => bearer.replace(/^Bearer /, '');
  beforeAll(async () => {
    h = await startHarness();
    client = new OpenAI({ baseURL: `${h.url}/v1`, apiKey: tokenOf(h.user), maxRetries: 0 });
  });
  afterAll(() => h.stop());

  const caught = <T>(promise: Promise<T>) => promise.then(() => undefined, (error: unknown) => error as APIError);

  it('lists the models of both backends', async () => {
    const page = await client.models.list();
    expect(page.data.map((model) => [model.id, model.owned_by])).toEqual([
      ['tiny:latest', 'local-models'],
      ['llama3.2:latest', 'ollama'],
      ['nomic-embed-text:latest', 'ollama'],
    ]);
    expect(page.data[0].object).toBe('model');
  });

  it('chats whole with an Ollama model and an embedded one, with their usage', async () => {
    const remote = await client.chat.completions.create({ model: 'llama3.2', messages: [{ role: 'user', content: 'hello there' }] });
    expect(remote.object).toBe('chat.completion');
    expect(remote.model).toBe('llama3.2:latest');
    expect(remote.choices[0]).toMatchObject({ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'echo: hello there' } });
    expect(remote.usage).toEqual({ prompt_tokens: 2, completion_tokens: 3, total_tokens: 5 });
    // OpenAI's sampling fields reach Ollama as its options.
    const sent = h.ollama!.requests.at(-1)!.body as Record<string, unknown>;
    expect(sent).toMatchObject({ model: 'llama3.2', messages: [{ role: 'user', content: 'hello there' }] });

    const local = await client.chat.completions.create({
      model: 'tiny',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hello' },
      ],
      max_tokens: 4,
      temperature: 0,
    });
    expect(local.model).toBe('tiny:latest');
    expect(local.choices[0].finish_reason).toBe('length');
    expect(local.usage).toMatchObject({ completion_tokens: 4 });
    expect(local.usage!.prompt_tokens).toBeGreaterThan(0);
  });

  it('streams chat chunks with the usage chunk last, from both backends', async () => {
    for (const [model, expected] of [
      ['llama3.2', 'echo: one two three'],
      ['tiny', undefined],
    ] as const) {
      const stream = await client.chat.completions.create({
        model,
        messages: [{ role: 'user', content: 'one two three' }],
        stream: true,
        stream_options: { include_usage: true },
        max_tokens: 5,
        temperature: 0,
      });
      const chunks = [];
      for await (const chunk of stream) chunks.push(chunk);
      const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
      if (expected) expect(text).toBe(expected);
      expect(chunks.length).toBeGreaterThan(2);
      expect(chunks[0].choices[0].delta.role).toBe('assistant');
      const last = chunks.at(-1)!;
      expect(last.choices).toEqual([]);
      expect(last.usage!.completion_tokens).toBeGreaterThan(0);
      expect(last.usage!.total_tokens).toBe(last.usage!.prompt_tokens + last.usage!.completion_tokens);
      expect(chunks.at(-2)!.choices[0].finish_reason).toMatch(/stop|length/);
      expect(chunks.slice(0, -1).every((chunk) => chunk.usage === null)).toBe(true);
    }
    // Without include_usage, no usage chunk.
    const plain = await client.chat.completions.create({ model: 'llama3.2', messages: [{ role: 'user', content: 'hi' }], stream: true });
    const chunks = [];
    for await (const chunk of plain) chunks.push(chunk);
    expect(chunks.every((chunk) => chunk.choices.length === 1 && chunk.usage === undefined)).toBe(true);
  });

  it('returns tool calls, whole and streamed, from Ollama', async () => {
    const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [
      { type: 'function', function: { name: 'lookup', description: 'Looks a word up', parameters: { type: 'object', properties: { text: { type: 'string' } } } } },
    ];
    const whole = await client.chat.completions.create({ model: 'llama3.2', messages: [{ role: 'user', content: 'lookup cats' }], tools });
    expect(whole.choices[0].finish_reason).toBe('tool_calls');
    const [call] = whole.choices[0].message.tool_calls as OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall[];
    expect(call).toMatchObject({ type: 'function', function: { name: 'lookup' } });
    expect(call.id).toMatch(/^call-/);
    expect(JSON.parse(call.function.arguments)).toEqual({ text: 'lookup cats' });
    // The tools reached Ollama in its (OpenAI's) format.
    expect((h.ollama!.requests.at(-1)!.body as { tools: unknown[] }).tools).toEqual(tools);

    // The answer goes back with the tool's result, as the next turn of the conversation.
    const next = await client.chat.completions.create({
      model: 'llama3.2',
      messages: [{ role: 'user', content: 'lookup cats' }, whole.choices[0].message, { role: 'tool', tool_call_id: call.id, content: 'cats: animals' }],
    });
    expect(next.choices[0].message.content).toBe('echo: lookup cats cats: animals');
    const sent = h.ollama!.requests.at(-1)!.body as { messages: unknown[] };
    expect(sent.messages[1]).toEqual({ role: 'assistant', content: '', tool_calls: [{ function: { name: 'lookup', arguments: { text: 'lookup cats' } } }] });
    expect(sent.messages[2]).toEqual({ role: 'tool', content: 'cats: animals' });

    const stream = await client.chat.completions.create({ model: 'llama3.2', messages: [{ role: 'user', content: 'lookup dogs' }], tools, stream: true });
    const deltas = [];
    for await (const chunk of stream) deltas.push(...(chunk.choices[0]?.delta.tool_calls ?? []));
    expect(deltas).toEqual([{ index: 0, id: expect.stringMatching(/^call-/), type: 'function', function: { name: 'lookup', arguments: '{"text":"lookup dogs"}' } }]);

    // tool_choice none: no tools offered to the model.
    await client.chat.completions.create({ model: 'llama3.2', messages: [{ role: 'user', content: 'x' }], tools, tool_choice: 'none' });
    expect((h.ollama!.requests.at(-1)!.body as { tools?: unknown }).tools).toBeUndefined();
  });

  it('makes an embedded model call the tool it is told to, by grammar', async () => {
    const answer = await client.chat.completions.create({
      model: 'tiny',
      messages: [{ role: 'user', content: 'weather in paris' }],
      tools: [{ type: 'function', function: { name: 'weather', parameters: { type: 'object', properties: { city: { enum: ['paris', 'rome'] } } } } }],
      tool_choice: { type: 'function', function: { name: 'weather' } },
      max_tokens: 200,
      temperature: 0,
    });
    expect(answer.choices[0].finish_reason).toBe('tool_calls');
    const [call] = answer.choices[0].message.tool_calls as OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall[];
    expect(call.function.name).toBe('weather');
    expect(['paris', 'rome']).toContain(JSON.parse(call.function.arguments).city);
    expect(answer.choices[0].message.content).toBeNull();
  });

  it('lets an embedded model choose between answering and calling a tool (auto, required)', async () => {
    const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [
      { type: 'function', function: { name: 'weather', parameters: { type: 'object', properties: { city: { enum: ['paris', 'rome'] } } } } },
      { type: 'function', function: { name: 'time', parameters: { type: 'object', properties: { zone: { enum: ['utc', 'cet'] } } } } },
    ];
    const required = await client.chat.completions.create({
      model: 'tiny',
      messages: [{ role: 'user', content: 'weather or time' }],
      tools,
      tool_choice: 'required',
      max_tokens: 200,
      temperature: 0,
    });
    const [call] = required.choices[0].message.tool_calls as OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall[];
    expect(required.choices[0].finish_reason).toBe('tool_calls');
    expect(['weather', 'time']).toContain(call.function.name);
    expect(JSON.parse(call.function.arguments)).toEqual(expect.any(Object));

    // auto: a call or an answer, either way in OpenAI's shape (an answer cut by max_tokens is text).
    const auto = await client.chat.completions.create({ model: 'tiny', messages: [{ role: 'user', content: 'hello' }], tools, max_tokens: 40, temperature: 0 });
    const choice = auto.choices[0];
    expect(['stop', 'length', 'tool_calls']).toContain(choice.finish_reason);
    if (choice.finish_reason === 'tool_calls') expect(choice.message.tool_calls!.length).toBe(1);
    else expect(typeof choice.message.content).toBe('string');
  });

  it('keeps the answer to JSON with response_format, by grammar or by Ollama format', async () => {
    const json = await client.chat.completions.create({
      model: 'tiny',
      messages: [{ role: 'user', content: 'hello' }],
      response_format: { type: 'json_object' },
      max_tokens: 30,
      temperature: 0,
    });
    expect(json.choices[0].message.content).toMatch(/^\s*[{[]/);

    const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };
    const shaped = await client.chat.completions.create({
      model: 'tiny',
      messages: [{ role: 'user', content: 'hello' }],
      response_format: { type: 'json_schema', json_schema: { name: 'answer', schema } },
      max_tokens: 30,
      temperature: 0,
    });
    expect(shaped.choices[0].message.content).toMatch(/^\s*\{\s*"answer"\s*:\s*"/);

    await client.chat.completions.create({ model: 'llama3.2', messages: [{ role: 'user', content: 'hi' }], response_format: { type: 'json_object' } });
    expect((h.ollama!.requests.at(-1)!.body as { format: unknown }).format).toBe('json');
    await client.chat.completions.create({
      model: 'llama3.2',
      messages: [{ role: 'user', content: 'hi' }],
      response_format: { type: 'json_schema', json_schema: { name: 'answer', schema } },
    });
    expect((h.ollama!.requests.at(-1)!.body as { format: unknown }).format).toEqual(schema);
  });

  it('completes text, whole and streamed', async () => {
    const remote = await client.completions.create({ model: 'llama3.2', prompt: 'say this', max_tokens: 2 });
    expect(remote).toMatchObject({ object: 'text_completion', choices: [{ text: 'echo: say', finish_reason: 'stop' }] });
    expect(h.ollama!.requests.at(-1)!.body).toMatchObject({ raw: true, prompt: 'say this', options: { num_predict: 2 } });

    const stream = await client.completions.create({ model: 'tiny', prompt: 'hello', max_tokens: 4, temperature: 0, stream: true, stream_options: { include_usage: true } });
    let text = '';
    let usage;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.text ?? '';
      usage = chunk.usage ?? usage;
    }
    const whole = await client.completions.create({ model: 'tiny', prompt: 'hello', max_tokens: 4, temperature: 0 });
    expect(whole.choices[0].text).toBe(text);
    expect(usage).toEqual(whole.usage);
    expect(whole.usage!.completion_tokens).toBe(4);
  });

  it('embeds with both backends (the client asks for base64 and decodes it)', async () => {
    const local = await client.embeddings.create({ model: 'tiny', input: ['hello world', 'the cat'] });
    expect(local.data).toHaveLength(2);
    expect(local.data[0].embedding).toHaveLength(64);
    expect(local.usage.prompt_tokens).toBeGreaterThan(2);
    const floats = await client.embeddings.create({ model: 'tiny', input: 'hello world', encoding_format: 'float' });
    expect(floats.data[0].embedding.map((value) => Math.fround(value))).toEqual(local.data[0].embedding.map((value) => Math.fround(value)));

    const remote = await client.embeddings.create({ model: 'nomic-embed-text', input: 'a b', encoding_format: 'float' });
    expect(remote).toMatchObject({ object: 'list', model: 'nomic-embed-text:latest', data: [{ index: 0, embedding: [3, 2, 0.5, -0.5] }], usage: { prompt_tokens: 2 } });
  });

  it('records usage as the Ollama routes do', async () => {
    const subject = `openai-${Date.now()}`;
    const own = new OpenAI({ baseURL: `${h.url}/v1`, apiKey: tokenOf(h.issuer.bearer(['models:read', 'models:invoke'], { sub: subject })), maxRetries: 0 });
    await own.chat.completions.create({ model: 'llama3.2', messages: [{ role: 'user', content: 'count me' }] });
    await own.embeddings.create({ model: 'nomic-embed-text', input: 'me too' });
    const usage = await eventually(async () => {
      const res = await request(h.url).get('/usage').set('Authorization', h.issuer.bearer(['models:read'], { sub: subject }));
      return res.body.total === 2 ? res.body : undefined;
    });
    expect(usage.items.map((item: { endpoint: string }) => item.endpoint).sort()).toEqual(['chat.completions', 'embeddings']);
    expect(usage.totals).toMatchObject({ promptTokens: 4, completionTokens: 3 });
  });

  it("answers the platform's typed client (LocalModelsClient) on /v1", async () => {
    const typed = new LocalModelsClient({ baseUrl: h.url, timeoutMs: 10_000 });
    const answer = await typed.chatCompletion({ model: 'llama3.2', messages: [{ role: 'user', content: 'typed call' }] }, { bearer: tokenOf(h.user) });
    expect(answer.choices[0].message.content).toBe('echo: typed call');
    expect((await typed.models({ bearer: tokenOf(h.user) })).data.map((model) => model.id)).toContain('tiny:latest');
  });

  it('surfaces errors in OpenAI shape: status, code, param and message', async () => {
    const unknown = await caught(client.chat.completions.create({ model: 'nope', messages: [{ role: 'user', content: 'hi' }] }));
    expect(unknown).toBeInstanceOf(APIError);
    expect(unknown).toMatchObject({ status: 404, code: 'model_not_found', param: 'model', type: 'invalid_request_error' });
    expect(unknown!.message).toContain("Model 'nope' not found");

    const invalid = await caught(client.chat.completions.create({ model: 'tiny', messages: [{ role: 'user', content: 'hi' }], temperature: 5 }));
    expect(invalid).toMatchObject({ status: 400, type: 'invalid_request_error', param: 'temperature' });
    const wrongTool = await caught(
      client.chat.completions.create({ model: 'tiny', messages: [{ role: 'user', content: 'hi' }], tool_choice: { type: 'function', function: { name: 'nope' } } }),
    );
    expect(wrongTool).toMatchObject({ status: 400, param: 'tool_choice' });

    const anonymous = await caught(new OpenAI({ baseURL: `${h.url}/v1`, apiKey: 'not-a-token', maxRetries: 0 }).models.list());
    expect(anonymous).toMatchObject({ status: 401, type: 'authentication_error', code: 'invalid_token' });
    const reader = await caught(
      new OpenAI({ baseURL: `${h.url}/v1`, apiKey: tokenOf(h.reader), maxRetries: 0 }).chat.completions.create({ model: 'tiny', messages: [{ role: 'user', content: 'hi' }] }),
    );
    expect(reader).toMatchObject({ status: 403, type: 'permission_error', code: 'insufficient_permissions' });

    const route = await request(h.url).get('/v1/nothing').set('Authorization', h.user);
    expect(route.status).toBe(404);
    expect(route.body).toEqual({ error: { message: 'No route for GET /v1/nothing', type: 'invalid_request_error', code: 'route_not_found', param: null } });
    const notJson = await request(h.url).post('/v1/chat/completions').set('Authorization', h.user).set('Content-Type', 'application/json').send('{"model":');
    expect(notJson.status).toBe(400);
    // Parsed before any route: the platform's shape, whose `error.message` and `error.code` OpenAI clients read alike.
    expect(notJson.body.error).toMatchObject({ code: 'invalid_request', message: 'The request body is not valid JSON' });

    h.ollama!.mode = 'error';
    try {
      const failed = await caught(client.chat.completions.create({ model: 'llama3.2', messages: [{ role: 'user', content: 'hi' }] }));
      expect(failed).toMatchObject({ status: 502, type: 'server_error', code: 'upstream_error' });
    } finally {
      h.ollama!.mode = 'ok';
    }
  });

  it('ends a stream that breaks mid-answer with an error event the client raises', async () => {
    h.ollama!.mode = 'break';
    try {
      const stream = await client.chat.completions.create({ model: 'llama3.2', messages: [{ role: 'user', content: 'a b c d' }], stream: true });
      const error = await (async () => {
        for await (const chunk of stream) void chunk;
      })().catch((caughtError: unknown) => caughtError);
      expect(error).toBeInstanceOf(APIError);
      expect((error as APIError).message).toMatch(/stopped answering/);
    } finally {
      h.ollama!.mode = 'ok';
    }
  });
});

describe('a busy embedded model through the openai client', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ ollama: false, env: { LOCAL_MODELS_PARALLEL: '1', LOCAL_MODELS_QUEUE: '0', LOCAL_MODELS_MAX_PREDICT: '200000' } });
  });
  afterAll(() => h.stop());

  it('answers 503 service_unavailable in OpenAI shape while its one sequence is taken, and serves again once the stream is aborted', async () => {
    const client = new OpenAI({ baseURL: `${h.url}/v1`, apiKey: h.user.replace(/^Bearer /, ''), maxRetries: 0 });
    const stream = await client.chat.completions.create({ model: 'tiny', messages: [{ role: 'user', content: 'hello' }], stream: true, max_tokens: 200000 });
    const iterator = stream[Symbol.asyncIterator]();
    expect((await iterator.next()).value.choices[0].delta.role).toBe('assistant');

    const busy = await client.chat.completions.create({ model: 'tiny', messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 }).catch((error: unknown) => error);
    expect(busy).toBeInstanceOf(APIError);
    expect(busy).toMatchObject({ status: 503, type: 'server_error', code: 'service_unavailable' });
    expect((busy as APIError).headers?.get('retry-after')).toBe('1');

    stream.controller.abort();
    await iterator.next().catch(() => undefined);
    const served = await eventually(() =>
      client.chat.completions.create({ model: 'tiny', messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 }).catch(() => undefined),
    );
    expect(served.usage!.completion_tokens).toBe(2);
  });
});
