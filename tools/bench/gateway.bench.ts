// Gateway overhead on proxied calls: `npm run bench:gateway`.
// Side by side, one request at a time over keep-alive, after a warm-up, the two sides alternating
// in chunks so that both see the same machine load:
//   1. GET /api/v1/registry/discover through the gateway, beside asking registry, mesh and
//      mcp-registry directly in parallel (what a client would do without the gateway);
//   2. POST /api/v1/agents/{id}/execute through the gateway (mesh send, the agent's reply),
//      beside sending the same message to the mesh directly and waiting for the reply itself.
// The upstreams are the gateway tests' fakes (apps/gateway/test/fakes.ts) answering at once, so the
// difference is the gateway's own cost: token verification, the Redis rate limit, validation,
// Postgres records, the reply hub. Everything runs in this process: CPU per request is this
// process's CPU time over the requests of one side, and the overhead is the difference.
// Targets: overhead p50 under 2 ms and p99 under 10 ms.
// BENCH_PROFILE=<dir> writes a CPU profile of the measured requests only (startup left out), one per
// comparison, to open in Chrome's DevTools.
import { startService } from '@platform/service-kit';
import { testDatabaseUrl, testRedisUrl } from '@platform/testing';
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { Session } from 'node:inspector/promises';
import type { AddressInfo } from 'node:net';
import { gatewayService } from '../../apps/gateway/src/service';
import { Fakes } from '../../apps/gateway/test/fakes';
import { percentile } from './lib/load';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 300);
const CHUNKS = 4;
const PROFILE = process.env.BENCH_PROFILE;
const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });

/** Runs `work` under the V8 CPU profiler when BENCH_PROFILE names a directory. */
async function profiled(name: string, work: () => Promise<void>): Promise<void> {
  if (!PROFILE) return work();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  await work();
  const { profile } = await session.post('Profiler.stop');
  mkdirSync(PROFILE, { recursive: true });
  writeFileSync(`${PROFILE}/${name}.cpuprofile`, JSON.stringify(profile));
  session.disconnect();
}

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

interface Side {
  name: string;
  once: () => Promise<void>;
  times: number[];
  cpuMicros: number;
}
const side = (name: string, once: () => Promise<void>): Side => ({ name, once, times: [], cpuMicros: 0 });

/** Warms both sides up, then runs them in alternating chunks, timing each request and the CPU of each chunk. */
async function compare(via: Side, direct: Side): Promise<void> {
  for (let i = 0; i < WARMUP; i++) {
    await via.once();
    await direct.once();
  }
  for (let chunk = 0; chunk < CHUNKS; chunk++) {
    for (const s of chunk % 2 === 0 ? [via, direct] : [direct, via]) {
      const cpu = process.cpuUsage();
      for (let i = 0; i < REQUESTS / CHUNKS; i++) {
        const started = process.hrtime.bigint();
        await s.once();
        s.times.push(Number(process.hrtime.bigint() - started) / 1e6);
      }
      const used = process.cpuUsage(cpu);
      s.cpuMicros += used.user + used.system;
    }
  }
}

function report(via: Side, direct: Side): void {
  const stats = (s: Side) => {
    const sorted = [...s.times].sort((a, b) => a - b);
    return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), cpu: s.cpuMicros / 1000 / s.times.length };
  };
  const v = stats(via);
  const d = stats(direct);
  for (const [s, x] of [
    [via, v],
    [direct, d],
  ] as const)
    console.log(`  ${s.name.padEnd(22)} p50 ${x.p50.toFixed(2).padStart(6)}  p99 ${x.p99.toFixed(2).padStart(6)}  cpu/req ${x.cpu.toFixed(3)} ms`);
  const p50 = v.p50 - d.p50;
  const p99 = v.p99 - d.p99;
  console.log(
    `  overhead ${via.name.split(' ')[0].padEnd(8)}       p50 ${p50.toFixed(2).padStart(6)}  p99 ${p99.toFixed(2).padStart(6)}  cpu/req ${(v.cpu - d.cpu).toFixed(3)} ms` +
      `  (p50/p99 ratio ${(v.p50 / d.p50).toFixed(2)}x/${(v.p99 / d.p99).toFixed(2)}x; targets < 2 and < 10 ms: ${p50 < 2 && p99 < 10 ? 'met' : 'missed'})`,
  );
}

async function main(): Promise<void> {
  const fakes = await new Fakes({ record: false, replyDelayMs: 0 }).start();
  const port = 3970;
  const gateway = await startService(gatewayService, {
    env: {
      ...fakes.env(),
      PORT: String(port),
      LOG_LEVEL: 'silent',
      OTEL_SDK_DISABLED: 'true',
      DATABASE_URL: testDatabaseUrl,
      REDIS_URL: testRedisUrl,
      SERVICE_ROLE: 'api',
      GATEWAY_PUBLIC_URL: `http://127.0.0.1:${port}`,
      GATEWAY_RATE_BURST: '1000000',
    },
    verifier: fakes.issuer.verifier(),
  });
  const authorization = fakes.issuer.bearer(['*']);
  const base = `http://127.0.0.1:${port}/api/v1`;

  // An agent to execute, created through the gateway.
  const manifest = { apiVersion: 'std/v0.4.7', kind: 'Agent', metadata: { name: `bench-${randomUUID().slice(0, 8)}`, namespace: 'bench', version: '1.0.0' } };
  const created = await call('POST', `${base}/agents`, { manifest, deployment: { endpoint: 'http://127.0.0.1:9/agent' } }, { authorization });
  if (created.status !== 201) throw new Error(`creating the bench agent answered ${created.status}: ${created.text}`);
  const agentId = JSON.parse(created.text).id as string;

  // The direct client's own reply listener for the execute comparison.
  const waiting = new Map<string, () => void>();
  const replies = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(202).end();
      waiting.get(req.url!.slice(1))?.();
    });
  });
  replies.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => replies.listen(0, '127.0.0.1', resolve));
  const repliesUrl = `http://127.0.0.1:${(replies.address() as AddressInfo).port}`;

  const discoverVia = side('discover via gateway', async () => {
    const answer = await call('GET', `${base}/registry/discover?capability=summarize`, undefined, { authorization });
    if (answer.status !== 200) throw new Error(`discover ${answer.status}`);
  });
  const discoverDirect = side('discover direct', async () => {
    await Promise.all([
      call('GET', `${fakes.registry.url}/api/v1/agents?capability=summarize`, undefined, { authorization }),
      call('GET', `${fakes.mesh.url}/api/v1/agents?capability=summarize`, undefined, { authorization }),
      call('POST', `${fakes.mcpRegistry.url}/connections/discover`, { capabilities: ['summarize'] }, { authorization }),
    ]);
  });
  const executeVia = side('execute via gateway', async () => {
    const answer = await call('POST', `${base}/agents/${agentId}/execute`, { input: { text: 'hi' } }, { authorization });
    if (answer.status !== 200) throw new Error(`execute ${answer.status}: ${answer.text}`);
  });
  const executeDirect = side('execute direct', async () => {
    const id = randomUUID();
    const replied = new Promise<void>((resolve) => waiting.set(id, resolve));
    await call(
      'POST',
      `${fakes.mesh.url}/api/v1/messages`,
      { to: agentId, message_id: id, payload: { input: { text: 'hi' }, reply_to: `${repliesUrl}/${id}` } },
      { authorization },
    );
    await replied;
    waiting.delete(id);
  });

  await profiled('discover', () => compare(discoverVia, discoverDirect));
  await profiled('execute', () => compare(executeVia, executeDirect));
  console.log(`\ngateway overhead, sequential, ${REQUESTS} requests a side after ${WARMUP} warm-up, ${CHUNKS} alternating chunks (ms)`);
  report(discoverVia, discoverDirect);
  report(executeVia, executeDirect);
  // Connection reuse: every upstream was called thousands of times over a handful of connections.
  const opened = [fakes.registry, fakes.mesh, fakes.mcpRegistry].map((fake) => `${fake.name} ${fake.connections}`).join(', ');
  console.log(`  TCP connections the upstreams accepted (gateway and direct client together): ${opened}`);

  await call('DELETE', `${base}/agents/${agentId}`, undefined, { authorization });
  await gateway.stop();
  replies.close();
  await fakes.stop();
  agent.destroy();
  process.exit(0);
}

void main().catch((error) => {
  console.error(error);
  process.exit(1);
});
