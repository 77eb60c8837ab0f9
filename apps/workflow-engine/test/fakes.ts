import { randomUUID } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { closeLocally, listenLocally } from '@platform/testing';

type Route = (req: IncomingMessage, body: unknown, res: ServerResponse) => unknown;

/** A tiny JSON HTTP server started inside a test; every request is recorded. */
export class FakeServer {
  readonly requests: Array<{ method: string; path: string; headers: http.IncomingHttpHeaders; body: unknown; raw: string }> = [];
  private readonly server: http.Server;
  url = '';

  constructor(private readonly route: Route) {
    this.server = http.createServer(async (req, res) => {
      let raw = '';
      for await (const chunk of req) raw += chunk;
      let body: unknown = raw;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        // keep the text
      }
      this.requests.push({ method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, body, raw });
      await this.route(req, body, res);
    });
  }

  async start(): Promise<this> {
    this.url = await listenLocally(this.server);
    return this;
  }

  stop(): Promise<void> {
    return closeLocally(this.server);
  }
}

export const json = (res: ServerResponse, status: number, body: unknown) =>
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));

/**
 * A fake Ollama API (what local-models serves). Prompts steer it: `FAIL_ALWAYS` answers 500,
 * `FAIL_TWICE:<key>` fails twice per key then answers, `HOLD:<key>` waits for `release(key)`,
 * `HANG` never answers. Embeddings: texts with "cat" → [1,0,0], "dog" → [0,1,0], else [0,0,1].
 */
export function fakeOllama() {
  const failures = new Map<string, number>();
  const holds = new Map<string, Array<() => void>>();
  const released = new Set<string>();
  const server = new FakeServer(async (req, body, res) => {
    const request = body as { model?: string; prompt?: string; input?: string | string[] };
    if (req.url === '/api/generate') {
      const prompt = String(request.prompt ?? '');
      if (prompt.includes('FAIL_ALWAYS')) return json(res, 500, { error: 'model crashed' });
      const twice = /FAIL_TWICE:(\w+)/.exec(prompt)?.[1];
      if (twice) {
        const seen = failures.get(twice) ?? 0;
        failures.set(twice, seen + 1);
        if (seen < 2) return json(res, 503, { error: 'model loading' });
      }
      if (prompt.includes('HANG')) return;
      const hold = /HOLD:(\w+)/.exec(prompt)?.[1];
      if (hold && !released.has(hold)) {
        await new Promise<void>((resolve) => holds.set(hold, [...(holds.get(hold) ?? []), resolve]));
        if (!res.socket || res.socket.destroyed) return;
      }
      return json(res, 200, {
        model: request.model,
        created_at: new Date().toISOString(),
        response: `echo(${prompt})`,
        done: true,
        prompt_eval_count: prompt.split(/\s+/).length,
        eval_count: 5,
      });
    }
    if (req.url === '/api/embed') {
      const inputs = Array.isArray(request.input) ? request.input : [String(request.input ?? '')];
      const embeddings = inputs.map((text) => (text.includes('cat') ? [1, 0, 0] : text.includes('dog') ? [0, 1, 0] : [0, 0, 1]));
      return json(res, 200, { model: request.model, embeddings, prompt_eval_count: inputs.length });
    }
    json(res, 404, { error: 'not found' });
  });
  return Object.assign(server, {
    release(key: string) {
      released.add(key);
      for (const resolve of holds.get(key) ?? []) resolve();
      holds.delete(key);
    },
    prompts: () => server.requests.filter((r) => r.path === '/api/generate').map((r) => String((r.body as { prompt?: string }).prompt)),
  });
}

/** A fake MCP registry: discovery finds one connection per capability; tools echo, read files or fail. */
export function fakeMcpRegistry() {
  const connectionId = randomUUID();
  return Object.assign(
    new FakeServer((req, body, res) => {
      if (req.url === '/connections/discover') {
        const capabilities = (body as { capabilities?: string[] }).capabilities ?? [];
        const none = capabilities.includes('nothing');
        return json(res, 200, {
          connections: none
            ? []
            : [
                {
                  id: connectionId,
                  name: 'everything',
                  protocol: 'stdio',
                  capabilities,
                  health: { status: 'healthy', uptime: 10 },
                  load: 0,
                  endpoint: { command: 'mcp-server-everything', args: [] },
                },
              ],
          totalMatching: none ? 0 : 1,
          loadBalanced: true,
          strategy: 'least-loaded',
        });
      }
      const call = /^\/connections\/([^/]+)\/tools\/([^/]+)\/call$/.exec(req.url ?? '');
      if (call && req.method === 'POST') {
        const [, id, tool] = call;
        if (id !== connectionId) return json(res, 404, { error: { type: 'not_found_error', code: 'not_found', message: 'No connection' } });
        const args = (body as { arguments?: Record<string, unknown> }).arguments ?? {};
        const result =
          tool === 'echo'
            ? { content: [{ type: 'text', text: `Echo: ${String(args.message)}` }] }
            : tool === 'read_text_file'
              ? { content: [{ type: 'text', text: `contents of ${String(args.path)}` }] }
              : { content: [{ type: 'text', text: 'Unknown tool' }], isError: true };
        return json(res, 200, { connectionId: id, tool, success: !result.isError, latency: 1, result });
      }
      json(res, 404, { error: { type: 'not_found_error', code: 'route_not_found', message: 'No route' } });
    }),
    { connectionId },
  );
}

/** A GitLab-style REST API: projects and their issues. */
export function fakeGitLab(token = 'scm-token') {
  const issues: Array<{ iid: number; title: string }> = [];
  return new FakeServer((req, body, res) => {
    if (req.headers.authorization !== `Bearer ${token}`) return json(res, 401, { message: '401 Unauthorized' });
    const url = new URL(req.url ?? '/', 'http://x');
    const project = /^\/api\/v4\/projects\/([^/]+)(\/issues)?$/.exec(url.pathname);
    if (!project) return json(res, 404, { message: '404 Not Found' });
    const id = decodeURIComponent(project[1]);
    if (id !== 'group/app') return json(res, 404, { message: '404 Project Not Found' });
    if (!project[2]) return json(res, 200, { id: 7, path_with_namespace: id, name: 'app' });
    if (req.method === 'POST') {
      const issue = { iid: issues.length + 1, title: String((body as { title?: string }).title) };
      issues.push(issue);
      return json(res, 201, issue);
    }
    json(res, 200, issues);
  });
}

/** An OpenAI-compatible images endpoint. */
export function fakeImages() {
  return new FakeServer((req, body, res) => {
    if (req.url !== '/v1/images/generations') return json(res, 404, {});
    json(res, 200, { created: 1, data: [{ url: `https://images.test/${encodeURIComponent(String((body as { prompt?: string }).prompt))}.png` }] });
  });
}
