// Agent mesh throughput and latency against the real Postgres and Redis, in one run:
//   1. raw BullMQ on the same Redis: jobs added one by one and processed by a no-op worker (msgs/s, add → processed p99),
//   2. the mesh: POST /api/v1/messages to a capability → P2C choice → Postgres → the agent's BullMQ queue →
//      a real grpc-js subscriber → Ack (msgs/s, POST → delivered p99, POST → acknowledged p99),
//   3. choosing an agent for a capability among 10,000 registered agents (p50/p99 per choice).
// The mesh runs in this process (startService, as in tests) on loopback ports, in a cluster of its own;
// everything it creates is removed at the end.
// Run: npm run bench:mesh     (BENCH_SECONDS per case, default 5; BENCH_CONCURRENCY HTTP senders, default 32; BENCH_AGENTS subscribers, default 4)
import * as grpc from '@grpc/grpc-js';
import { bullmqConnection } from '@platform/data';
import { startService } from '@platform/service-kit';
import { TestIssuer, testDatabaseUrl, testRedisUrl } from '@platform/testing';
import { Queue, Worker } from 'bullmq';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import os from 'node:os';
import { AgentsRepository } from '../../apps/mesh/src/agents/agents.repository';
import { protos } from '../../apps/mesh/src/grpc/proto';
import { LoadTracker } from '../../apps/mesh/src/routing/load';
import { RoutingTable } from '../../apps/mesh/src/routing/routing.table';
import { meshService } from '../../apps/mesh/src/service';
import { fmt, percentile, post } from './lib/load';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const SUBSCRIBERS = Number(process.env.BENCH_AGENTS ?? 4);
const DIRECTORY = 10_000;
const CHOICES = 200_000;

const line = (name: string, value: string) => console.log(`${name.padEnd(58)} ${value}`);

/** Raw BullMQ: CONCURRENCY producers add jobs one at a time; one worker (concurrency 64) completes them. */
async function rawBullmq(): Promise<void> {
  const name = `mesh.bench-raw-${randomUUID().slice(0, 8)}`;
  const queue = new Queue(name, { connection: bullmqConnection(testRedisUrl, 'producer') });
  const latencies: number[] = [];
  let processed = 0;
  const worker = new Worker(
    name,
    async (job) => {
      latencies.push(performance.now() - (job.data as { t: number }).t);
      processed++;
    },
    { connection: bullmqConnection(testRedisUrl, 'worker'), concurrency: 64 },
  );
  await worker.waitUntilReady();
  const deadline = performance.now() + SECONDS * 1000;
  const started = performance.now();
  let added = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < deadline) {
        await queue.add('job', { t: performance.now() }, { removeOnComplete: true });
        added++;
      }
    }),
  );
  while (processed < added && performance.now() - started < SECONDS * 1000 + 30_000) await new Promise((resolve) => setTimeout(resolve, 10));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  line(
    'raw BullMQ add → processed',
    `${fmt(processed / seconds)} msgs/s   p50 ${fmt(percentile(latencies, 50), 1)} ms   p99 ${fmt(percentile(latencies, 99), 1)} ms   (${processed} jobs)`,
  );
  await worker.close();
  await queue.obliterate({ force: true });
  await queue.close();
}

interface Delivery {
  id: string;
  control: string;
}

async function meshEndToEnd(issuer: TestIssuer): Promise<void> {
  const cluster = `bench-${randomUUID().slice(0, 8)}`;
  const svc = await startService(meshService, {
    env: {
      PORT: '0',
      GRPC_PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      DATABASE_URL: testDatabaseUrl,
      REDIS_URL: testRedisUrl,
      MESH_CLUSTER: cluster,
      OTEL_SDK_DISABLED: 'true',
    },
    verifier: issuer.verifier(),
  });
  const grpcPort = ((await fetch(`${svc.url}/health`).then((res) => res.json())) as { grpc: { port: number } }).grpc.port;
  const capability = `bench-${randomUUID().slice(0, 8)}`;
  const md = new grpc.Metadata();
  // One caller registers, subscribes and later deletes the agents: only their owner may.
  const owner = issuer.bearer(['mesh:write'], { sub: `bench-${randomUUID()}` });
  md.set('authorization', owner);
  const sentAt = new Map<string, number>();
  const deliveredMs: number[] = [];
  const ackedMs: number[] = [];
  let acked = 0;
  const clients: grpc.Client[] = [];
  const agentIds: string[] = [];
  const streams: grpc.ClientReadableStream<Delivery>[] = [];
  for (let i = 0; i < SUBSCRIBERS; i++) {
    const client = new (protos().Mesh)(`127.0.0.1:${grpcPort}`, grpc.credentials.createInsecure()) as grpc.Client &
      Record<string, (...args: unknown[]) => unknown>;
    clients.push(client);
    const agentId = `${capability}-agent-${i}`;
    agentIds.push(agentId);
    await new Promise((resolve, reject) =>
      client.Register({ id: agentId, name: 'bench', capabilities: [capability], ttl_ms: 3_600_000 }, md, (e: unknown, r: unknown) =>
        e ? reject(e) : resolve(r),
      ),
    );
    const stream = client.Subscribe({ agent_id: agentId }, md) as grpc.ClientReadableStream<Delivery>;
    streams.push(stream);
    stream.on('error', () => undefined);
    stream.on('data', (delivery: Delivery) => {
      if (delivery.control) return;
      const t0 = sentAt.get(delivery.id);
      if (t0 !== undefined) deliveredMs.push(performance.now() - t0);
      client.Ack({ agent_id: agentId, id: delivery.id, ok: true }, md, (error: unknown) => {
        if (error) return;
        const start = sentAt.get(delivery.id);
        if (start !== undefined) {
          ackedMs.push(performance.now() - start);
          sentAt.delete(delivery.id);
        }
        acked++;
      });
    });
  }
  await new Promise((resolve) => setTimeout(resolve, 300));
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const url = new URL('/api/v1/messages', svc.url);
  const auth = { authorization: issuer.bearer(['mesh:write']) };
  // Warm up.
  for (let i = 0; i < 200; i++) {
    const t0 = performance.now();
    const res = await post(agent, url, { capability, payload: { warm: i } }, auth);
    sentAt.set(res.body.id, t0);
  }
  while (acked < 200) await new Promise((resolve) => setTimeout(resolve, 10));
  deliveredMs.length = 0;
  ackedMs.length = 0;
  acked = 0;
  let sent = 0;
  let errors = 0;
  const cpuBefore = process.cpuUsage();
  const deadline = performance.now() + SECONDS * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, w) => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        const res = await post(agent, url, { capability, payload: { w, n: sent } }, auth).catch(() => ({ status: 0, body: {} as Record<string, string> }));
        if (res.status !== 202) {
          errors++;
          continue;
        }
        sentAt.set(res.body.id, t0);
        sent++;
      }
    }),
  );
  const sendSeconds = (performance.now() - started) / 1000;
  while (acked < sent && performance.now() - started < SECONDS * 1000 + 30_000) await new Promise((resolve) => setTimeout(resolve, 10));
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const cpuMsPerMessage = (cpu.user + cpu.system) / 1000 / Math.max(1, acked);
  deliveredMs.sort((a, b) => a - b);
  ackedMs.sort((a, b) => a - b);
  line(`mesh POST /messages (${CONCURRENCY} senders)`, `${fmt(sent / sendSeconds)} msgs/s accepted   (${sent} messages, ${errors} errors)`);
  line(`mesh POST → gRPC subscriber ack (${SUBSCRIBERS} agents)`, `${fmt(acked / seconds)} msgs/s acknowledged`);
  line('mesh delivery latency POST → subscriber', `p50 ${fmt(percentile(deliveredMs, 50), 1)} ms   p99 ${fmt(percentile(deliveredMs, 99), 1)} ms`);
  line('mesh POST → acknowledgement recorded by the mesh', `p50 ${fmt(percentile(ackedMs, 50), 1)} ms   p99 ${fmt(percentile(ackedMs, 99), 1)} ms`);
  // This process runs the mesh, the HTTP senders and the gRPC agents: CPU per message bounds what one core can do.
  line(
    'CPU of this process per message (mesh + senders + agents)',
    `${fmt(cpuMsPerMessage, 2)} ms   (≈ ${fmt(1000 / cpuMsPerMessage)} msgs/s per free core; load average ${os.loadavg()[0].toFixed(1)})`,
  );

  for (const stream of streams) stream.cancel();
  for (const client of clients) client.close();
  agent.destroy();
  const db = svc.infra.db;
  await db.message.deleteMany({ where: { agentId: { in: agentIds } } });
  for (const id of agentIds) await fetch(`${svc.url}/api/v1/agents/${id}`, { method: 'DELETE', headers: { authorization: owner } });
  await svc.stop();
}

async function chooseAmongDirectory(issuer: TestIssuer): Promise<void> {
  const svc = await startService(meshService, {
    env: {
      PORT: '0',
      GRPC_PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      DATABASE_URL: testDatabaseUrl,
      REDIS_URL: testRedisUrl,
      MESH_CLUSTER: `bench-${randomUUID().slice(0, 8)}`,
      OTEL_SDK_DISABLED: 'true',
    },
    verifier: issuer.verifier(),
  });
  const db = svc.infra.db;
  const tag = `bench-dir-${randomUUID().slice(0, 8)}`;
  const capability = `${tag}-shared`;
  const rows = Array.from({ length: DIRECTORY }, (_, i) => ({
    id: `${tag}-${i}`,
    name: 'bench',
    namespace: tag,
    capabilities: [capability, `${tag}-c${i % 50}`],
    nodeId: tag,
    latencyMs: 1 + (i % 97),
  }));
  for (let i = 0; i < rows.length; i += 1000) await db.agent.createMany({ data: rows.slice(i, i + 1000) });
  try {
    const tracker = new LoadTracker();
    const table = new RoutingTable(() => new AgentsRepository(db).routable(), tracker);
    const b0 = performance.now();
    const snapshot = await table.current();
    const buildMs = performance.now() - b0;
    for (let i = 0; i < DIRECTORY; i += 7) tracker.started(`${tag}-${i}`);
    const samples: number[] = [];
    for (let i = 0; i < CHOICES; i++) {
      const t0 = performance.now();
      await table.choose(capability);
      samples.push(performance.now() - t0);
    }
    samples.sort((a, b) => a - b);
    line(`routing table build (${fmt(snapshot.statuses.size)} routable agents in Postgres)`, `${fmt(buildMs, 1)} ms`);
    line(
      `choose among ${fmt(snapshot.capabilities.get(capability)?.length ?? 0)} agents of one capability`,
      `p50 ${fmt(percentile(samples, 50) * 1000, 2)} µs   p99 ${fmt(percentile(samples, 99) * 1000, 2)} µs   (${fmt(CHOICES)} choices)`,
    );
  } finally {
    await db.agent.deleteMany({ where: { namespace: tag } });
    await svc.stop();
  }
}

async function main(): Promise<void> {
  const issuer = await new TestIssuer().start();
  console.log(`mesh benchmark: ${SECONDS} s per case, Postgres ${new URL(testDatabaseUrl).host}, Redis ${new URL(testRedisUrl).host}\n`);
  await rawBullmq();
  await meshEndToEnd(issuer);
  await chooseAmongDirectory(issuer);
  await issuer.stop();
  process.exit(0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
