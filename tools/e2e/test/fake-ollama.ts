import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The model server behind local-models (OLLAMA_URL): Ollama's `/api/tags` and `/api/generate`
 * (whole answers), the prompt echoed back. No model server of the real world can be reached here.
 */
export class FakeOllama {
  readonly requests: Array<{ method: string; path: string; body: Record<string, unknown> | undefined; headers: IncomingHttpHeaders }> = [];
  url = '';
  private readonly server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const body = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
      const path = (req.url ?? '/').split('?')[0];
      this.requests.push({ method: req.method ?? 'GET', path, body, headers: req.headers });
      const json = (status: number, answer: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(answer));
      };
      if (req.method === 'GET' && path === '/api/version') return json(200, { version: '0.12.0-fake' });
      if (req.method === 'GET' && path === '/api/tags') {
        return json(200, {
          models: [
            {
              name: 'llama3.2:latest',
              model: 'llama3.2:latest',
              modified_at: '2026-11-01T10:00:00Z',
              size: 1_000_000,
              digest: 'a'.repeat(64),
              details: { format: 'gguf', family: 'llama', families: ['llama'], parameter_size: '3.2B', quantization_level: 'Q4_K_M' },
            },
          ],
        });
      }
      if (req.method === 'POST' && path === '/api/generate' && body && String(body.model).startsWith('llama3.2')) {
        const answer = `echo: ${String(body.prompt)}`;
        const final = { model: body.model, created_at: new Date().toISOString(), done: true, done_reason: 'stop', prompt_eval_count: 5, eval_count: 4 };
        if (body.stream === false) return json(200, { ...final, response: answer });
        res.writeHead(200, { 'content-type': 'application/x-ndjson' });
        res.write(`${JSON.stringify({ model: body.model, created_at: final.created_at, response: answer, done: false })}\n`);
        return res.end(`${JSON.stringify({ ...final, response: '' })}\n`);
      }
      json(404, { error: `${req.method} ${path} is not served here` });
    });
  });

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
