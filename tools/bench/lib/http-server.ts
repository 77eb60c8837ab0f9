/**
 * A one-route service for tools/bench/http.bench.ts, started as a child process so that the load
 * generator does not share its event loop: `tsx tools/bench/lib/http-server.ts <mode> <port>`.
 * Modes: `bare` (plain Express, express.json), `kit` (createServiceApp, public route), `kit-auth`
 * (the same route behind token verification and a permission).
 */
import { ApiRouter, createAppServer, createServiceApp } from '@platform/http';
import { createLogger } from '@platform/telemetry';
import { TestIssuer } from '@platform/testing';
import express from 'express';
import { z } from 'zod';

async function main(): Promise<void> {
  const [mode = 'bare', port = '3960'] = process.argv.slice(2);
  const issuer = await new TestIssuer().start();
  let app: express.Express;
  if (mode === 'bare') {
    app = express();
    app.use(express.json());
    app.post('/api/echo', (req, res) => {
      res.json({ active: true, name: req.body?.name });
    });
  } else {
    const api = new ApiRouter(issuer.verifier()).route({
      method: 'post',
      path: '/echo',
      summary: 'Echo',
      access: mode === 'kit-auth' ? { permission: 'bench:read' } : 'public',
      body: z.object({ name: z.string().max(100) }),
      responses: { 200: { description: 'Echoed', schema: z.object({ active: z.boolean(), name: z.string() }) } },
      handler: (req) => ({ active: true, name: req.valid.body.name }),
    });
    app = createServiceApp({
      name: 'bench',
      logger: createLogger('bench', '0', 'info'),
      openapi: { title: 'Bench', version: '0' },
      health: { checks: {} },
      routers: [{ basePath: '/api', router: api }],
    });
  }
  // The kit's app is served as services serve it (libs/service-kit's listen), bare Express as is.
  const server = mode === 'bare' ? app : createAppServer(app);
  server.listen(Number(port), '127.0.0.1', () => process.send?.({ authorization: issuer.bearer(['bench:read']) }));
}

process.on('message', (m) => {
  if (m === 'exit') process.exit(0);
});
void main();
