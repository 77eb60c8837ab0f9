// MCP registry speed over real HTTP against the real Postgres and Redis and real MCP servers:
//   1. batch health check of 50 stdio servers (@modelcontextprotocol/server-everything, each its own
//      supervised process) against one single check (target: batch wall time within 3x a single check),
//   2. discovery latency (p50/p95/p99) with 1,000 registered connections (target: p95 < 20 ms).
// The service runs in this process (startService, as main.ts does) on a loopback port; tokens come from
// a local test issuer. Everything created is removed at the end.
// Run: npm run bench:mcp-registry   (BENCH_SERVERS, default 50; BENCH_DISCOVERIES, default 500;
//                                    MCP_CHECK_CONCURRENCY, the batch's parallelism, default 16)
import { bullmqConnection } from '@platform/data';
import { startTestService } from '@platform/testing';
import { Queue } from 'bullmq';
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { mcpRegistryService } from '../../apps/mcp-registry/src/service';

const SERVERS = Number(process.env.BENCH_SERVERS ?? 50);
const DISCOVERIES = Number(process.env.BENCH_DISCOVERIES ?? 500);
const CONNECTIONS = 1000;
const SINGLE_RUNS = 20;
const BATCH_RUNS = 5;
const BATCH_TARGET = 3;
const DISCOVERY_TARGET_MS = 20;

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const median = (values: number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
const ms = (value: number) => `${value.toFixed(1)} ms`;

async function main(): Promise<void> {
  const run = randomUUID().slice(0, 8);
  const sub = `bench-${run}`;
  const service = await startTestService(mcpRegistryService, {
    env: {
      ...(process.env.PATH && { PATH: process.env.PATH }),
      ...(process.env.MCP_CHECK_CONCURRENCY && { MCP_CHECK_CONCURRENCY: process.env.MCP_CHECK_CONCURRENCY }),
      MCP_HEALTH_QUEUE: `mcp-registry-bench-${run}`,
      MCP_STDIO_WORK_ROOT: path.join(os.tmpdir(), 'mcp-registry-bench'),
      MCP_RATE_LIMIT: '1000000',
      MCP_RATE_LIMIT_BURST: '1000000',
      MCP_RECONCILE_SCHEDULES: 'false',
    },
  });
  const { issuer } = service;
  const config = service.infra.config;
  const db = service.infra.db;
  const base = service.url;
  const auth = { Authorization: issuer.bearer(['*'], { sub }), 'Content-Type': 'application/json' };
  const post = async (route: string, body: unknown) => {
    const res = await fetch(`${base}${route}`, { method: 'POST', headers: auth, body: JSON.stringify(body) });
    const json = (await res.json()) as Record<string, unknown>;
    if (!res.ok) throw new Error(`${route}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  const timed = async (work: () => Promise<unknown>) => {
    const start = performance.now();
    await work();
    return performance.now() - start;
  };

  try {
    console.log(`mcp-registry benchmark: ${os.cpus().length} cores, node ${process.version}, batch parallelism ${config.MCP_CHECK_CONCURRENCY}\n`);

    // 1. Batch health check over stdio servers.
    const ids: string[] = [];
    for (let i = 0; i < SERVERS; i++) {
      const created = await post('/connections', {
        name: `bench-${run}-stdio-${i}`,
        protocol: 'stdio',
        endpoint: { command: 'mcp-server-everything', args: ['stdio'] },
        healthCheck: { enabled: false, interval: 30, timeout: 5000 },
      });
      ids.push(created.id as string);
    }
    const cold = await timed(() => post('/connections/health-check/batch', { connectionIds: ids, timeout: 120_000 }));
    console.log(`cold batch: start ${SERVERS} server processes + initialize + ping + tools/list   ${ms(cold)}`);
    const coldHealthy = ((await post('/connections/health-check/batch', { connectionIds: ids, timeout: 30_000 })).summary as { healthy: number }).healthy;

    const singles: number[] = [];
    for (let i = 0; i < SINGLE_RUNS; i++) singles.push(await timed(() => post(`/connections/${ids[i % ids.length]}/health-check`, {})));
    const batches: number[] = [];
    let lastSummary: unknown;
    for (let i = 0; i < BATCH_RUNS; i++) {
      batches.push(
        await timed(async () => {
          lastSummary = (await post('/connections/health-check/batch', { connectionIds: ids })).summary;
        }),
      );
    }
    const single = median(singles);
    const batch = median(batches);
    const ratio = batch / single;
    console.log(`single check (ping + tools/list on a supervised server), median of ${SINGLE_RUNS}   ${ms(single)}`);
    console.log(
      `batch check of ${SERVERS} stdio servers, median of ${BATCH_RUNS}                        ${ms(batch)}   summary ${JSON.stringify(lastSummary)} (healthy after warm-up: ${coldHealthy})`,
    );
    console.log(
      `batch / single                                                     ${ratio.toFixed(2)}x   target <= ${BATCH_TARGET}x  ${ratio <= BATCH_TARGET ? 'PASS' : 'MISS'}\n`,
    );

    // Ends the 50 processes before the discovery case, so it measures discovery alone.
    for (const id of ids) await fetch(`${base}/connections/${id}`, { method: 'DELETE', headers: auth });

    // 2. Discovery with 1,000 connections (rows as registration and checks leave them).
    const capabilities = Array.from({ length: 20 }, (_, i) => `bench-${run}-cap-${i}`);
    const now = Date.now();
    await db.connection.createMany({
      data: Array.from({ length: CONNECTIONS }, (_, i) => {
        const names = [capabilities[i % 20], capabilities[(i * 7 + 3) % 20], capabilities[(i * 13 + 5) % 20]];
        return {
          name: `bench-${run}-conn-${i}`,
          type: 'server',
          protocol: ['stdio', 'http', 'websocket'][i % 3],
          endpoint: i % 3 === 0 ? { command: 'mcp-server-everything', args: ['stdio'] } : { url: `http://127.0.0.1:${20000 + i}/mcp` },
          declaredCapabilities: names,
          capabilityNames: [...new Set(names)],
          capacity: 10,
          healthStatus: i % 10 === 0 ? 'degraded' : 'healthy',
          upSince: new Date(now - (i % 100) * 60_000),
          lastResponseTime: 5 + (i % 40),
          checksPerformed: 10,
          recentChecks: [true, true, true],
          createdBy: sub,
        };
      }),
    });
    const cases: Array<[string, object]> = [
      [
        'one capability (about 15% match), least-loaded, max 5',
        { capabilities: [capabilities[3]], loadBalancing: { strategy: 'least-loaded', maxConnections: 5 } },
      ],
      [
        'two capabilities + protocol + minUptime filters',
        {
          capabilities: [capabilities[3], capabilities[4]],
          filters: { protocol: 'http', minUptime: 600 },
          loadBalancing: { strategy: 'least-loaded', maxConnections: 3 },
        },
      ],
      ['no capability: all 1,000 match, least-loaded, max 10', { capabilities: [], loadBalancing: { strategy: 'least-loaded', maxConnections: 10 } }],
    ];
    for (const [label, body] of cases) {
      for (let i = 0; i < 30; i++) await post('/connections/discover', body);
      const latencies: number[] = [];
      let matching = 0;
      for (let i = 0; i < DISCOVERIES; i++) {
        latencies.push(
          await timed(async () => {
            matching = (await post('/connections/discover', body)).totalMatching as number;
          }),
        );
      }
      latencies.sort((a, b) => a - b);
      const p95 = percentile(latencies, 95);
      console.log(
        `discovery, ${label.padEnd(52)} p50 ${ms(percentile(latencies, 50))}  p95 ${ms(p95)}  p99 ${ms(percentile(latencies, 99))}  (${matching} matching, ${DISCOVERIES} requests)  target p95 < ${DISCOVERY_TARGET_MS} ms  ${p95 < DISCOVERY_TARGET_MS ? 'PASS' : 'MISS'}`,
      );
    }
  } finally {
    await db.connection.deleteMany({ where: { createdBy: sub } });
    service.server.closeAllConnections();
    await service.stop();
    for (const name of [config.MCP_HEALTH_QUEUE, `${config.MCP_HEALTH_QUEUE}.on-demand`]) {
      const queue = new Queue(name, { connection: bullmqConnection(config.REDIS_URL, 'worker') });
      await queue.obliterate({ force: true }).catch(() => undefined);
      await queue.close();
    }
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
