// Workers engine throughput against the real Postgres and Redis, in one run:
//   1. raw BullMQ: no-op jobs added in bulk and processed on the same Redis (the ceiling),
//   2. BENCH_RUNS runs (default 100) of a BENCH_STEPS-step DAG (default 100: layers of 10 steps,
//      each depending on two steps of the layer above: fan-out, fan-in, diamonds) of no-op `http`
//      steps against a local server (its own process), through the service's own API and workers:
//      steps per second, and the delay from a step's last dependency completing to its start
//      (p50/p95/p99: from the answer to the last dependency's request to the arrival of the step's
//      own, on the server's clock). Targets: >= 2,000 steps/s, p95 delay < 50 ms. Under
//      saturation the delay is mostly the backlog waiting for a free slot, so it is also measured
//      with BENCH_LATENCY_RUNS (default 5) runs one at a time.
// The service runs in this process (role all, WORKERS_CONCURRENCY, default 32: two cores) on its
// own queue. Run: npm run bench:workers   (BENCH_RUNS, BENCH_STEPS, BENCH_CONCURRENCY, BENCH_RAW_JOBS)
import { sqlPool } from '@platform/data';
import { startService } from '@platform/service-kit';
import { TestIssuer, testDatabaseUrl, testRedisUrl } from '@platform/testing';
import { Queue, Worker } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import type { Db } from '../../apps/workers/src/database';
import { workersService } from '../../apps/workers/src/service';
import { commandCpuMicros, cpuSpentBetween, forkReady, processCpuMicros } from './lib/load';

const RUNS = Number(process.env.BENCH_RUNS ?? 100);
const STEPS = Number(process.env.BENCH_STEPS ?? 100);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const RAW_JOBS = Number(process.env.BENCH_RAW_JOBS ?? 20_000);
const LATENCY_RUNS = Number(process.env.BENCH_LATENCY_RUNS ?? 5);
const WIDTH = 10;
/** The stores' processes on this machine, whose CPU per step is printed beside the engine's. */
const STORES = ['postgres', 'redis-server'];

const connection = () => {
  const url = new URL(testRedisUrl);
  return { host: url.hostname, port: Number(url.port || 6379), maxRetriesPerRequest: null };
};

async function rawBullmq(): Promise<number> {
  const name = `workers.bench-raw-${randomUUID().slice(0, 8)}`;
  const queue = new Queue(name, { connection: connection() });
  for (let i = 0; i < RAW_JOBS; i += 1000) {
    await queue.addBulk(
      Array.from({ length: Math.min(1000, RAW_JOBS - i) }, (_, j) => ({ name: 'noop', data: { i: i + j }, opts: { removeOnComplete: true } })),
    );
  }
  let done = 0;
  const start = process.hrtime.bigint();
  let worker!: Worker;
  await new Promise<void>((resolve) => {
    worker = new Worker(
      name,
      async () => {
        if (++done === RAW_JOBS) resolve();
      },
      { connection: connection(), concurrency: CONCURRENCY },
    );
  });
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  await worker.close();
  await queue.obliterate({ force: true }).catch(() => undefined);
  await queue.close();
  return RAW_JOBS / seconds;
}

/** Layers of WIDTH steps; each step below the first layer depends on two steps of the layer above. */
function dag(url: string) {
  return Array.from({ length: STEPS }, (_, i) => {
    const layer = Math.floor(i / WIDTH);
    const column = i % WIDTH;
    const above = (layer - 1) * WIDTH;
    const depends_on = layer === 0 ? [] : [...new Set([above + column, above + ((column + 1) % WIDTH)])].filter((d) => d < STEPS).map((d) => `s${d}`);
    return { id: `s${i}`, type: 'http', url: `${url}/noop`, depends_on };
  });
}

/**
 * For every step with dependencies: its request's arrival at the target server minus the answer to
 * its last dependency's request (ms), from the server's own clock (lib/noop-target.mjs). Measured
 * there, not from Postgres, because a dependant claimed by its dependency's completion shares that
 * statement's `now()`.
 */
async function delaysOf(targetUrl: string, runIds: string[]): Promise<number[]> {
  const { arrived, answered } = (await (await fetch(`${targetUrl}/__times`)).json()) as Record<'arrived' | 'answered', Record<string, number>>;
  const runs = new Set(runIds);
  const delays: number[] = [];
  for (const [key, at] of Object.entries(arrived)) {
    const [runId, stepId] = key.split(':') as [string, string];
    if (!runs.has(runId)) continue;
    const dependencies = dependenciesOf.get(stepId) ?? [];
    if (dependencies.length === 0) continue;
    delays.push(at - Math.max(...dependencies.map((dependency) => answered[`${runId}:${dependency}`] ?? NaN)));
  }
  return delays;
}
const dependenciesOf = new Map<string, string[]>();

async function untilEnded(db: Db, id: string): Promise<void> {
  while (['pending', 'running'].includes((await db.run.findUniqueOrThrow({ where: { id }, select: { state: true } })).state))
    await new Promise((resolve) => setTimeout(resolve, 20));
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;

async function main(): Promise<void> {
  const { child: target, ready } = await forkReady<{ port: number }>('the target server', path.join(__dirname, 'lib/noop-target.mjs'), [], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const targetUrl = `http://127.0.0.1:${ready.port}`;

  const raw = await rawBullmq();
  console.log(`raw BullMQ (${RAW_JOBS} no-op jobs, concurrency ${CONCURRENCY})`.padEnd(62), `${Math.round(raw).toLocaleString('en-US').padStart(8)} jobs/s`);

  const issuer = await new TestIssuer().start();
  const queue = `workers.bench-${randomUUID().slice(0, 8)}`;
  const svc = await startService(workersService, {
    env: {
      PORT: '0',
      LOG_LEVEL: 'warn',
      DATABASE_URL: testDatabaseUrl,
      REDIS_URL: testRedisUrl,
      DATABASE_POOL_SIZE: process.env.BENCH_POOL ?? '40',
      WORKERS_QUEUE: queue,
      WORKERS_CONCURRENCY: String(CONCURRENCY),
      WORKERS_ALLOW_PRIVATE_URLS: 'true',
      WORKERS_MAX_STEPS: String(Math.max(STEPS, 200)),
    },
    verifier: issuer.verifier(),
  });
  const db = svc.infra.db as Db;
  const poll = sqlPool(testDatabaseUrl, 'workers', { poolSize: 1 });
  // Dead rows of earlier runs cleared, as autovacuum keeps them in a deployment (this machine's
  // Postgres runs without it, so every run would otherwise start slower than the one before).
  await poll.query('VACUUM ANALYZE steps, attempts, runs');
  const authorization = issuer.bearer(['workflows:write']);
  const steps = dag(targetUrl);
  for (const step of steps) dependenciesOf.set(step.id, step.depends_on);
  const name = `bench-${randomUUID().slice(0, 8)}`;
  const post = async () => {
    const res = await fetch(`${svc.url}/api/v1/workflows`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ name, steps }),
    });
    if (res.status !== 202) throw new Error(`POST /workflows answered ${res.status}: ${await res.text()}`);
    return ((await res.json()) as { workflow_id: string }).workflow_id;
  };
  // Warm-up: one run, not counted.
  const warm = await post();
  await untilEnded(db, warm);

  const transactions = async () =>
    Number((await poll.query<{ n: string }>(`SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()`)).rows[0]!.n);
  const transactionsBefore = await transactions();
  const start = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  const targetCpu = processCpuMicros(target.pid!);
  const storesCpu = commandCpuMicros(STORES);
  const ids: string[] = [];
  for (let i = 0; i < RUNS; i += 10) ids.push(...(await Promise.all(Array.from({ length: Math.min(10, RUNS - i) }, post))));
  // Polled with plain pg every 50 ms: the bench's own polling should not weigh on the CPU per step.
  for (;;) {
    const { rows } = await poll.query<{ open: number }>(
      `SELECT count(*)::int AS open FROM runs WHERE id = ANY($1::uuid[]) AND state IN ('pending', 'running')`,
      [ids],
    );
    if (rows[0]!.open === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const used = process.cpuUsage(cpu);
  const targetUsed = processCpuMicros(target.pid!) - targetCpu;
  const storesUsed = cpuSpentBetween(storesCpu, commandCpuMicros(STORES));
  // Each statement of the engine is a transaction of its own. Postgres 15's backends report their
  // counts at most once a second while busy, and an idle one only after 10 s: wait that out, or the
  // last second of the run goes uncounted.
  await new Promise((resolve) => setTimeout(resolve, 11_000));
  const transactionsUsed = (await transactions()) - transactionsBefore;
  const states = await db.run.groupBy({ by: ['state'], where: { id: { in: ids } }, _count: true });
  const total = RUNS * STEPS;
  console.log(
    `${RUNS} runs x ${STEPS}-step DAG of no-op http steps`.padEnd(62),
    `${Math.round(total / seconds)
      .toLocaleString('en-US')
      .padStart(8)} steps/s   (${total} steps in ${seconds.toFixed(1)} s; runs ${states.map((s) => `${s.state} ${s._count}`).join(', ')})`,
  );
  console.log(
    'CPU of this process per step (the API and the workers)'.padEnd(62),
    `${((used.user + used.system) / 1000 / total).toFixed(2)} ms   (load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores)`,
  );

  const perStep = (micros: number) => `${(micros / 1000 / total).toFixed(2)} ms`;
  console.log(
    'CPU per step of the other processes'.padEnd(62),
    `target server ${perStep(targetUsed)}, ${STORES.map((command) => `${command} ${perStep(storesUsed.get(command) ?? 0)}`).join(', ')}`,
  );
  console.log(
    'Postgres transactions per step'.padEnd(62),
    `${(transactionsUsed / total).toFixed(2)}   (${transactionsUsed} in all, the bench's own polling included)`,
  );

  const sorted = (await delaysOf(targetUrl, ids)).sort((a, b) => a - b);
  console.log(
    'dependency completed -> dependant started'.padEnd(62),
    `p50 ${percentile(sorted, 50).toFixed(1)} ms   p95 ${percentile(sorted, 95).toFixed(1)} ms   p99 ${percentile(sorted, 99).toFixed(1)} ms   (${sorted.length} steps)`,
  );

  // The engine's own delay, without a backlog: the same DAG, one run at a time.
  const alone: string[] = [];
  for (let i = 0; i < LATENCY_RUNS; i++) {
    const id = await post();
    alone.push(id);
    await untilEnded(db, id);
  }
  const quiet = (await delaysOf(targetUrl, alone)).sort((a, b) => a - b);
  console.log(
    `  the same, ${LATENCY_RUNS} runs one at a time (no backlog)`.padEnd(62),
    `p50 ${percentile(quiet, 50).toFixed(1)} ms   p95 ${percentile(quiet, 95).toFixed(1)} ms   p99 ${percentile(quiet, 99).toFixed(1)} ms   (${quiet.length} steps)`,
  );

  // Every attempt should have completed: a lost or failed one is a defect the figures would hide.
  const { rows: others } = await poll.query<{ state: string; count: number }>(
    `SELECT state, count(*)::int AS count FROM attempts WHERE "runId" = ANY($1::uuid[]) AND state <> 'completed' GROUP BY state`,
    [[...ids, ...alone, warm]],
  );
  console.log('attempts that did not complete'.padEnd(62), others.length ? others.map((row) => `${row.state} ${row.count}`).join(', ') : 'none');

  await db.run.deleteMany({ where: { id: { in: [...ids, ...alone, warm] } } });
  await db.definition.deleteMany({ where: { name } });
  await poll.end();
  await svc.stop();
  await issuer.stop();
  target.kill();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
