// Gateway overhead on proxied calls: `npm run bench:gateway`.
// Side by side, sequentially (one request at a time, keep-alive, after a warm-up):
//   1. GET /api/v1/registry/discover through the gateway, beside asking registry, mesh and
//      mcp-registry directly in parallel (what a client would do without the gateway);
//   2. POST /api/v1/agents/{id}/execute through the gateway (mesh send, the agent's reply),
//      beside sending the same message to the mesh directly and waiting for the reply itself.
// The upstreams are small local HTTP servers answering at once, so the difference is the gateway's
// own cost: token verification, the Redis rate limit, validation, Postgres records, the reply hub.
// Targets: overhead p50 under 2 ms and p99 under 10 ms.
import { startService } from '@platform/service-kit';
import { TestIssuer, testDatabaseUrl, testRedisUrl } from '@platform/testing';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gatewayService } from '../../apps/gateway/src/service';
import { percentile } from './lib/load';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 300);
const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });

type Handler = (req: http.IncomingMessage, body: string, res: http.ServerResponse) => void;
async function server(handler: Handler): Promise<{ url: string; close: () => void }> {
  const created = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => handler(req, body, res));
  });
  created.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => created.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(created.address() as AddressInfo).port}`, close: () => created.close() };
}
const json = (res: http.ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

function call(method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method, agent, headers: { ...(payload && { 'content-type': 'application/json', 'content-length': String(payload.length) }), ...headers } },
      (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

async function measure(name: string, once: () => Promise<void>): Promise<{ name: string; p50: number; p99: number }> {
  for (let i = 0; i < WARMUP; i++) await once();
  const times: number[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const started = process.hrtime.bigint();
    await once();
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  times.sort((a, b) => a - b);
  return { name, p50: percentile(times, 50), p99: percentile(times, 99) };
}

async function main(): Promise<void> {
  const issuer = await new TestIssuer().start();
  const now = new Date().toISOString();
  const registryAgent = {
    namespace: 'bench',
    name: 'a',
    owner: 'x',
    displayName: null,
    summary: null,
    homepage: null,
    repository: null,
    keywords: [],
    compliance: [],
    latestVersion: '1.0.0',
    description: null,
    kind: 'Agent',
    agentKind: null,
    agentType: null,
    tier: null,
    status: 'active',
    capabilities: ['summarize'],
    tags: [],
    labels: {},
    certified: false,
    certifiedVersion: null,
    createdAt: now,
    updatedAt: now,
  };
  const registry = await server((_req, _body, res) => json(res, 200, { items: [registryAgent], total: 1, limit: 50, offset: 0 }));
  const mcp = await server((_req, _body, res) =>
    json(res, 200, {
      connections: [
        {
          id: randomUUID(),
          name: 'everything',
          protocol: 'stdio',
          capabilities: ['summarize'],
          health: { status: 'healthy', uptime: 1 },
          load: 0,
          endpoint: { command: 'x' },
        },
      ],
      totalMatching: 1,
      loadBalanced: true,
      strategy: 'least-loaded',
    }),
  );
  // The mesh delivers each message to the "agent", which answers at its reply URL at once.
  const mesh = await server((req, body, res) => {
    if (req.method === 'GET')
      return json(res, 200, { agents: [{ id: 'live', name: 'a', capabilities: ['summarize'], endpoint: null, status: 'passing', metadata: {} }], total: 1 });
    if (req.method === 'POST' && req.url === '/api/v1/agents') return json(res, 201, { id: JSON.parse(body).id });
    if (req.method === 'POST' && req.url === '/api/v1/messages') {
      const message = JSON.parse(body) as { message_id: string; to: string; payload: { reply_to: string; input: unknown } };
      json(res, 202, { id: randomUUID(), message_id: message.message_id, agent_id: message.to, state: 'queued', duplicate: false });
      void call('POST', message.payload.reply_to, { output: { echo: message.payload.input } });
      return;
    }
    json(res, 200, {});
  });
  const master = await server((_req, _body, res) => json(res, 201, { id: randomUUID() }));
  const tracing = await server((_req, _body, res) => json(res, 200, {}));
  const registryWithPublish = await server((req, body, res) => {
    if (req.method === 'POST') {
      const metadata = JSON.parse(body).metadata;
      return json(res, 201, {
        agent: { ...registryAgent, name: metadata.name },
        version: {
          namespace: 'bench',
          name: metadata.name,
          version: '1.0.0',
          prerelease: false,
          latest: true,
          format: 'json',
          digest: 'x',
          size: 1,
          schemaVersion: '0.4.7',
          warnings: [],
          publishedBy: 'x',
          publishedAt: now,
          unpublished: false,
          unpublishedAt: null,
          certification: null,
          manifestUrl: '/',
        },
        created: true,
      });
    }
    json(res, 200, { items: [registryAgent], total: 1, limit: 50, offset: 0 });
  });

  const port = 3970;
  const gateway = await startService(gatewayService, {
    env: {
      PORT: String(port),
      LOG_LEVEL: 'silent',
      OTEL_SDK_DISABLED: 'true',
      DATABASE_URL: testDatabaseUrl,
      REDIS_URL: testRedisUrl,
      GATEWAY_PUBLIC_URL: `http://127.0.0.1:${port}`,
      GATEWAY_RATE_BURST: '1000000',
      REGISTRY_URL: registryWithPublish.url,
      MESH_URL: mesh.url,
      MCP_REGISTRY_URL: mcp.url,
      MASTER_URL: master.url,
      TRACING_URL: tracing.url,
    },
    verifier: issuer.verifier(),
  });
  const authorization = issuer.bearer(['*']);
  const base = `http://127.0.0.1:${port}/api/v1`;

  // An agent to execute, created through the gateway.
  const manifest = { apiVersion: 'std/v0.4.7', kind: 'Agent', metadata: { name: `bench-${randomUUID().slice(0, 8)}`, namespace: 'bench', version: '1.0.0' } };
  const created = await call('POST', `${base}/agents`, { manifest, deployment: { endpoint: 'http://127.0.0.1:9/agent' } }, { authorization });
  if (created.status !== 201) throw new Error(`creating the bench agent answered ${created.status}: ${created.text}`);
  const agentId = JSON.parse(created.text).id as string;

  // The direct client's own reply listener for the execute comparison.
  const waiting = new Map<string, () => void>();
  const replies = await server((req, _body, res) => {
    res.writeHead(202).end();
    waiting.get(req.url!.slice(1))?.();
  });

  const results = [
    await measure('discover via gateway', async () => {
      const answer = await call('GET', `${base}/registry/discover?capability=summarize`, undefined, { authorization });
      if (answer.status !== 200) throw new Error(`discover ${answer.status}`);
    }),
    await measure('discover direct', async () => {
      await Promise.all([
        call('GET', `${registryWithPublish.url}/api/v1/agents?capability=summarize`, undefined, { authorization }),
        call('GET', `${mesh.url}/api/v1/agents?capability=summarize`, undefined, { authorization }),
        call('POST', `${mcp.url}/connections/discover`, { capabilities: ['summarize'] }, { authorization }),
      ]);
    }),
    await measure('execute via gateway', async () => {
      const answer = await call('POST', `${base}/agents/${agentId}/execute`, { input: { text: 'hi' } }, { authorization });
      if (answer.status !== 200) throw new Error(`execute ${answer.status}: ${answer.text}`);
    }),
    await measure('execute direct', async () => {
      const id = randomUUID();
      const replied = new Promise<void>((resolve) => waiting.set(id, resolve));
      await call(
        'POST',
        `${mesh.url}/api/v1/messages`,
        { to: agentId, message_id: id, payload: { input: { text: 'hi' }, reply_to: `${replies.url}/${id}` } },
        { authorization },
      );
      await replied;
      waiting.delete(id);
    }),
  ];

  console.log(`\ngateway overhead, sequential, ${REQUESTS} requests after ${WARMUP} warm-up (ms)`);
  for (const result of results) console.log(`  ${result.name.padEnd(22)} p50 ${result.p50.toFixed(2).padStart(6)}  p99 ${result.p99.toFixed(2).padStart(6)}`);
  for (const [via, direct] of [
    [results[0], results[1]],
    [results[2], results[3]],
  ]) {
    const p50 = via.p50 - direct.p50;
    const p99 = via.p99 - direct.p99;
    console.log(
      `  overhead ${via.name.split(' ')[0].padEnd(8)}       p50 ${p50.toFixed(2).padStart(6)}  p99 ${p99.toFixed(2).padStart(6)}  (targets < 2 and < 10: ${p50 < 2 && p99 < 10 ? 'met' : 'missed'})`,
    );
  }
  await call('DELETE', `${base}/agents/${agentId}`, undefined, { authorization });
  await gateway.stop();
  for (const upstream of [registry, mcp, mesh, master, tracing, registryWithPublish, replies]) upstream.close();
  await issuer.stop();
  agent.destroy();
  process.exit(0);
}

void main().catch((error) => {
  console.error(error);
  process.exit(1);
});
