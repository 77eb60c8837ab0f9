// Workflow engine throughput and scheduling delay, over real HTTP, BullMQ, Postgres and Redis:
//   1. executions per second of a 10-node workflow of logic nodes (target: at least 300/s),
//   2. the service's CPU per execution (its process alone: API and worker, as `--role all` runs),
//      which holds on a shared machine where wall-clock throughput does not,
//   3. node-to-node scheduling delay p50/p95/p99: a node's start minus its last parent's end
//      (target: p95 under 20 ms).
// The service runs in its own process (spawnService); this process only sends the requests, with
// `async: false`, from BENCH_CONCURRENCY closed loops over keep-alive connections.
// Run: npm run bench:workflow-engine   (BENCH_SECONDS, default 10; BENCH_CONCURRENCY, default 32;
//      BENCH_PROFILE=<dir> writes a V8 CPU profile of the service there)
import { spawnService, TestIssuer, testDatabaseUrl, testRedisUrl } from '@platform/testing';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { Client } from 'pg';
import { post as postJson } from './lib/load';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const PROFILE = process.env.BENCH_PROFILE;

/** User + system CPU milliseconds a process has used (Linux: /proc/<pid>/stat, in clock ticks of 10 ms). */
function processCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** Ten logic nodes: a fan-out of four conditions, two merges, a loop-free join. */
function tenNodeFlow() {
  const n = (id: string, type: string, data: Record<string, unknown>) => ({ id, type, position: { x: 0, y: 0 }, data });
  return {
    nodes: [
      n('start', 'Merge', { inputs: { value: 7 } }),
      n('c1', 'Condition', { condition: 'value > 1', input: '{{start.merged}}' }),
      n('c2', 'Condition', { condition: 'value > 5', input: '{{start.merged}}' }),
      n('c3', 'Condition', { condition: 'value < 3', input: '{{start.merged}}' }),
      n('c4', 'Condition', { condition: 'value = 7', input: '{{start.merged}}' }),
      n('m1', 'Merge', { inputs: ['{{c1.result}}', '{{c2.result}}'] }),
      n('m2', 'Merge', { inputs: ['{{c3.result}}', '{{c4.result}}'] }),
      n('both', 'Merge', { inputs: ['{{m1.merged}}', '{{m2.merged}}'] }),
      n('check', 'Condition', { condition: '$count($) = 4', input: '{{both.merged}}' }),
      n('end', 'Merge', { inputs: { ok: '{{check.result}}' } }),
    ],
    edges: [
      ['start', 'c1'],
      ['start', 'c2'],
      ['start', 'c3'],
      ['start', 'c4'],
      ['c1', 'm1'],
      ['c2', 'm1'],
      ['c3', 'm2'],
      ['c4', 'm2'],
      ['m1', 'both'],
      ['m2', 'both'],
      ['both', 'check'],
      ['check', 'end'],
    ].map(([source, target]) => ({ source, target })),
  };
}

async function main() {
  const issuer = await new TestIssuer().start();
  const svc = await spawnService('workflow-engine', {
    env: {
      LOG_LEVEL: 'info',
      DATABASE_URL: testDatabaseUrl,
      REDIS_URL: testRedisUrl,
      AUTH_URL: new URL(issuer.jwksUri).origin,
      AUTH_ISSUER: issuer.issuer,
      WORKFLOW_ENGINE_CONCURRENCY: String(Math.max(CONCURRENCY, 16)),
      WORKFLOW_ENGINE_RATE_LIMIT: '1000000',
      WORKFLOW_ENGINE_RATE_BURST: '1000000',
      WORKFLOW_ENGINE_RECOVER_ON_START: 'false',
      DATABASE_POOL_SIZE: '20',
      ...(PROFILE && { NODE_OPTIONS: `--require ${path.join(__dirname, 'lib/cpu-profile.cjs')}`, CPU_PROFILE_DIR: PROFILE }),
    },
  });
  const pid = svc.child.pid as number;
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const headers = { Authorization: issuer.bearer(['workflows:read', 'workflows:write']) };
  const post = (path: string, body: unknown) => postJson(agent, new URL(path, svc.url), body, headers);
  const created = await post('/api/v1/workflows', { name: 'bench ten logic nodes', category: 'bench', flow: tenNodeFlow() });
  if (created.status !== 201) throw new Error(`create failed: ${JSON.stringify(created.body)}`);
  const execute = async () => {
    const res = await post(`/api/v1/workflows/${created.body.id}/execute`, { options: { async: false } });
    if (res.status !== 200 || res.body.status !== 'completed')
      throw new Error(`execution did not complete: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
    return String(res.body.executionId);
  };
  for (let i = 0; i < 50; i++) await execute();

  const ids: string[] = [];
  const cpuBefore = processCpuMs(pid);
  const clientBefore = process.cpuUsage();
  const deadline = Date.now() + SECONDS * 1000;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < deadline) ids.push(await execute());
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const perSecond = ids.length / seconds;
  const cpuMsPerExecution = (processCpuMs(pid) - cpuBefore) / ids.length;
  const client = process.cpuUsage(clientBefore);
  const clientMsPerExecution = (client.user + client.system) / 1000 / ids.length;

  const pg = new Client({ connectionString: testDatabaseUrl });
  await pg.connect();
  const rows = await pg.query<{ nodes: Record<string, { startedAt: string; completedAt: string }> }>(
    'SELECT nodes FROM "workflow-engine"."Execution" WHERE id = ANY($1::uuid[])',
    [ids],
  );
  await pg.end();
  const flow = tenNodeFlow();
  const delays: number[] = [];
  for (const { nodes } of rows.rows) {
    for (const node of flow.nodes) {
      const parents = flow.edges.filter((edge) => edge.target === node.id).map((edge) => Date.parse(nodes[edge.source].completedAt));
      if (parents.length) delays.push(Date.parse(nodes[node.id].startedAt) - Math.max(...parents));
    }
  }
  delays.sort((a, b) => a - b);
  console.log(
    `10-node logic workflow: ${Math.round(perSecond)} executions/s  (${ids.length} executions, ${CONCURRENCY} concurrent, ${seconds.toFixed(1)} s; target >= 300/s)`,
  );
  console.log(
    `service process CPU: ${cpuMsPerExecution.toFixed(2)} ms per execution (HTTP, engine, Postgres and Redis clients, BullMQ; Postgres and Redis themselves not counted) = ${Math.round(1000 / cpuMsPerExecution)} executions/s per core`,
  );
  console.log(`load generator (this process) CPU: ${clientMsPerExecution.toFixed(2)} ms per execution, not counted above`);
  console.log(
    `node-to-node scheduling delay: p50 ${percentile(delays, 50)} ms, p95 ${percentile(delays, 95)} ms, p99 ${percentile(delays, 99)} ms  (${delays.length} edges; target p95 < 20 ms)`,
  );
  agent.destroy();
  await svc.stop(10_000);
  await issuer.stop();
  if (PROFILE) console.log(`CPU profile of the service written to ${PROFILE}`);
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
