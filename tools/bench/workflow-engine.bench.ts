// Workflow engine throughput and scheduling delay, over real HTTP, BullMQ, Postgres and Redis:
//   1. executions per second of a 10-node workflow of logic nodes (target: at least 300/s),
//   2. node-to-node scheduling delay p50/p95/p99: a node's start minus its last parent's end
//      (target: p95 under 20 ms).
// The service runs in this process (API and worker, as `--role all` does) on a loopback port;
// executions are submitted with `async: false` from BENCH_CONCURRENCY closed loops.
// Run: npm run bench:workflow-engine   (BENCH_SECONDS, default 10; BENCH_CONCURRENCY, default 32)
import { startService } from '@platform/service-kit';
import { TestIssuer, testDatabaseUrl, testRedisUrl } from '@platform/testing';
import { Client } from 'pg';
import { workflowEngineService } from '../../apps/workflow-engine/src/service';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);

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
  const svc = await startService(workflowEngineService, {
    env: {
      PORT: '0',
      LOG_LEVEL: 'silent',
      DATABASE_URL: testDatabaseUrl,
      REDIS_URL: testRedisUrl,
      WORKFLOW_ENGINE_CONCURRENCY: String(Math.max(CONCURRENCY, 16)),
      WORKFLOW_ENGINE_RATE_LIMIT: '1000000',
      WORKFLOW_ENGINE_RATE_BURST: '1000000',
      WORKFLOW_ENGINE_RECOVER_ON_START: 'false',
      DATABASE_POOL_SIZE: '20',
    },
    verifier: issuer.verifier(),
  });
  const auth = issuer.bearer(['workflows:read', 'workflows:write']);
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${svc.url}${path}`, {
      method: 'POST',
      headers: { Authorization: auth, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
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
  const cpuBefore = process.cpuUsage();
  const deadline = Date.now() + SECONDS * 1000;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < deadline) ids.push(await execute());
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const perSecond = ids.length / seconds;
  const cpu = process.cpuUsage(cpuBefore);
  const cpuMsPerExecution = (cpu.user + cpu.system) / 1000 / ids.length;

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
    `service process CPU: ${cpuMsPerExecution.toFixed(2)} ms per execution (HTTP, engine, Prisma, BullMQ; Postgres and Redis not counted) = ${Math.round(1000 / cpuMsPerExecution)} executions/s per core`,
  );
  console.log(
    `node-to-node scheduling delay: p50 ${percentile(delays, 50)} ms, p95 ${percentile(delays, 95)} ms, p99 ${percentile(delays, 99)} ms  (${delays.length} edges; target p95 < 20 ms)`,
  );
  await svc.stop();
  await issuer.stop();
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
