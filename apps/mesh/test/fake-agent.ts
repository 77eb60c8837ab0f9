import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A small HTTP agent started inside a test: records what the mesh POSTs and answers as told. */
export class FakeAgent {
  readonly received: Array<Record<string, unknown>> = [];
  status = 200;
  healthStatus = 200;
  delayMs = 0;
  healthChecks = 0;
  private server?: http.Server;

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        const answer = () => {
          if (req.url === '/health') {
            this.healthChecks += 1;
            res.writeHead(this.healthStatus).end('ok');
            return;
          }
          if (this.status < 300) this.received.push(JSON.parse(body || '{}'));
          res.writeHead(this.status, { 'content-type': 'application/json' }).end('{}');
        };
        if (this.delayMs > 0) setTimeout(answer, this.delayMs);
        else answer();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}
