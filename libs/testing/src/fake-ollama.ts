import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { closeLocally, listenLocally } from './local-server';

/**
 * A small Ollama server for tests and the benchmark: Ollama's routes and shapes, answers made up
 * from the request (the words of the prompt echoed back), instant unless `delayMs` is set.
 */
export interface FakeOllamaModel {
  name: string;
  size?: number;
}

export interface FakeOllama {
  url: string;
  /** Every request received: method, path and parsed body. */
  requests: Array<{ method: string; path: string; body: unknown; headers: IncomingMessage['headers'] }>;
  models: FakeOllamaModel[];
  /** `error`: every call answers 500; `break`: streams break off after the first chunk. */
  mode: 'ok' | 'error' | 'break';
  delayMs: number;
  stop(): Promise<void>;
}

const words = (text: string) => text.split(/\s+/).filter(Boolean);

function readBody(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('error', reject);
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        resolve(text ? JSON.parse(text) : undefined);
      } catch {
        resolve(text);
      }
    });
  });
}

export async function startFakeOllama(models: FakeOllamaModel[] = [{ name: 'llama3.2:latest' }, { name: 'nomic-embed-text:latest' }]): Promise<FakeOllama> {
  const fake = { requests: [], models, mode: 'ok', delayMs: 0 } as unknown as FakeOllama;
  const json = (res: ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };
  const known = (name: unknown) => typeof name === 'string' && fake.models.some((model) => model.name === name || model.name === `${name}:latest`);

  const server: Server = createServer(async (req, res) => {
    const body = (await readBody(req)) as Record<string, unknown> | undefined;
    const path = (req.url ?? '/').split('?')[0];
    fake.requests.push({ method: req.method ?? 'GET', path, body, headers: req.headers });
    if (fake.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, fake.delayMs));
    if (fake.mode === 'error') return json(res, 500, { error: 'the fake Ollama is failing on purpose' });
    if (req.method === 'GET' && path === '/api/version') return json(res, 200, { version: '0.12.0-fake' });
    if (req.method === 'GET' && path === '/api/tags') {
      return json(res, 200, {
        models: fake.models.map((model) => ({
          name: model.name,
          model: model.name,
          modified_at: '2026-11-01T10:00:00Z',
          size: model.size ?? 1_000_000,
          digest: `sha256-${Buffer.from(model.name).toString('hex').padEnd(64, '0').slice(0, 64)}`,
          details: { parent_model: '', format: 'gguf', family: 'llama', families: ['llama'], parameter_size: '3.2B', quantization_level: 'Q4_K_M' },
        })),
      });
    }
    if (req.method === 'GET' && path === '/api/ps') {
      const [first] = fake.models;
      return json(res, 200, {
        models: first
          ? [
              {
                name: first.name,
                model: first.name,
                size: 2_000_000,
                digest: 'sha256-ps',
                details: { family: 'llama' },
                expires_at: '2026-11-23T12:00:00Z',
                size_vram: 2_000_000,
              },
            ]
          : [],
      });
    }
    if (req.method === 'POST' && path === '/api/show') {
      if (!body || !known(body.model)) return json(res, 404, { error: `model '${String(body?.model)}' not found` });
      return json(res, 200, {
        modelfile: '# fake',
        parameters: 'temperature 0.7',
        template: '{{ .Prompt }}',
        details: { format: 'gguf', family: 'llama' },
        model_info: { 'general.architecture': 'llama' },
        capabilities: ['completion'],
      });
    }
    if (req.method !== 'POST' || !['/api/generate', '/api/chat', '/api/embed'].includes(path)) return json(res, 404, { error: '404 page not found' });
    if (!body || !known(body.model)) return json(res, 404, { error: `model '${String(body?.model)}' not found` });
    const model = String(body.model);
    const options = (body.options ?? {}) as { num_predict?: number; temperature?: number };
    if (options.temperature !== undefined && (typeof options.temperature !== 'number' || options.temperature > 2)) {
      return json(res, 400, { error: 'invalid option temperature' });
    }

    if (path === '/api/embed') {
      const inputs = Array.isArray(body.input) ? (body.input as string[]) : [String(body.input)];
      return json(res, 200, {
        model,
        embeddings: inputs.map((input) => [input.length, words(input).length, 0.5, -0.5]),
        total_duration: 1000,
        load_duration: 0,
        prompt_eval_count: inputs.reduce((sum, input) => sum + words(input).length, 0),
      });
    }

    const prompt =
      path === '/api/generate' ? String(body.prompt ?? '') : ((body.messages ?? []) as Array<{ content: string }>).map((message) => message.content).join(' ');
    const answer = words(`echo: ${prompt}`).slice(0, options.num_predict && options.num_predict > 0 ? options.num_predict : undefined);
    const chunk = (text: string) => (path === '/api/generate' ? { response: text } : { message: { role: 'assistant', content: text } });
    // A tool offered and named in the last user message is called with the prompt, as a model would.
    const last = ((body.messages ?? []) as Array<{ role?: string; content?: string }>).at(-1);
    const tool = ((body.tools ?? []) as Array<{ function?: { name?: string } }>).find(
      (offered) => offered.function?.name && last?.role === 'user' && words(last.content ?? '').includes(offered.function.name),
    );
    if (path === '/api/chat' && tool?.function?.name) {
      const called = {
        model,
        created_at: new Date().toISOString(),
        message: { role: 'assistant', content: '', tool_calls: [{ function: { name: tool.function.name, arguments: { text: prompt } } }] },
        done: true,
        done_reason: 'stop',
        prompt_eval_count: words(prompt).length,
        eval_count: 5,
      };
      if (body.stream === false) return json(res, 200, called);
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      return res.end(`${JSON.stringify(called)}\n`);
    }
    const final = {
      model,
      created_at: new Date().toISOString(),
      ...chunk(body.stream === false ? answer.join(' ') : ''),
      done: true,
      done_reason: 'stop',
      total_duration: 2000,
      load_duration: 100,
      prompt_eval_count: words(prompt).length,
      prompt_eval_duration: 500,
      eval_count: answer.length,
      eval_duration: 1400,
    };
    if (body.stream === false) return json(res, 200, final);
    res.writeHead(200, { 'content-type': 'application/x-ndjson' });
    for (const [index, word] of answer.entries()) {
      res.write(`${JSON.stringify({ model, created_at: new Date().toISOString(), ...chunk(index === 0 ? word : ` ${word}`), done: false })}\n`);
      if (fake.mode === 'break') {
        // Let the first line reach the client, then drop the connection mid-answer.
        await new Promise((resolve) => setTimeout(resolve, 50));
        return res.destroy();
      }
    }
    res.end(`${JSON.stringify(final)}\n`);
  });
  fake.url = await listenLocally(server);
  fake.stop = () => closeLocally(server);
  return fake;
}
