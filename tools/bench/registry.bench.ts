// Registry throughput and latency over real HTTP against the real Postgres and Redis:
//   1. publish requests per second (POST /api/v1/agents, new versions of a few agents),
//   2. manifest fetch requests per second (GET .../versions/{version}/manifest),
//   3. search latency (p50/p95/p99) with 10,000 agents loaded (target: p95 < 50 ms).
// The service runs in this process (startService, as main.ts does) on a loopback port; tokens come
// from a local test issuer. Everything is created in namespaces of its own and removed at the end.
// Run: npm run bench:registry     (BENCH_SECONDS per throughput case, default 5; BENCH_CONCURRENCY, default 8)
import { startTestService } from '@platform/testing';
import { randomUUID } from 'node:crypto';
import type { Db } from '../../apps/registry/src/database';
import { registryService } from '../../apps/registry/src/service';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const AGENTS = 10_000;
const SEARCHES = Number(process.env.BENCH_SEARCHES ?? 600);
const SEARCH_TARGET_MS = 50;

const WORDS = [
  'review',
  'code',
  'security',
  'audit',
  'deploy',
  'monitor',
  'translate',
  'summarize',
  'invoice',
  'support',
  'triage',
  'schedule',
  'research',
  'analytics',
  'pipeline',
  'database',
  'migration',
  'compliance',
  'privacy',
  'search',
  'index',
  'crawler',
  'chat',
  'voice',
  'image',
  'vision',
  'planner',
  'forecast',
  'pricing',
  'inventory',
  'logistics',
  'billing',
  'onboarding',
  'recruiting',
  'legal',
  'contract',
  'medical',
  'finance',
  'trading',
  'risk',
  'fraud',
  'marketing',
  'seo',
  'content',
  'editor',
  'testing',
  'incident',
  'oncall',
  'backup',
  'kubernetes',
];
const CAPABILITIES = ['filesystem-read', 'network-outbound', 'database-read', 'tool-execution', 'browser', 'secrets-read', 'gpu', 'human-interaction'];
const TIERS = ['tier_1_read', 'tier_2_write_limited', 'tier_3_write_elevated', 'tier_4_system_admin'];
const KINDS = ['Agent', 'Task', 'Workflow', 'Flow'];
const AGENT_KINDS = ['assistant', 'worker', 'reviewer', 'planner', 'analyst', 'researcher'];
const FRAMEWORKS = ['soc2', 'hipaa', 'gdpr', 'pci-dss'];

const pick = <T>(list: readonly T[], i: number): T => list[i % list.length];

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** Runs `request` from CONCURRENCY loops for SECONDS; returns requests per second. */
async function throughput(name: string, request: (i: number) => Promise<void>): Promise<number> {
  for (let i = 0; i < 200; i++) await request(-1 - i);
  let next = 0;
  let done = 0;
  const deadline = Date.now() + SECONDS * 1000;
  const start = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < deadline) {
        await request(next++);
        done++;
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const perSecond = done / seconds;
  console.log(
    `${name.padEnd(44)} ${Math.round(perSecond).toLocaleString('en-US').padStart(8)} req/s   (${done} requests, ${CONCURRENCY} concurrent, ${seconds.toFixed(1)} s)`,
  );
  return perSecond;
}

function manifestJson(namespace: string, name: string, version: string): string {
  return JSON.stringify({
    apiVersion: 'std/v0.4.7',
    kind: 'Agent',
    metadata: {
      name,
      namespace,
      version,
      description: 'Benchmark agent that reviews code and reports findings.',
      labels: { team: 'bench' },
      catalog: { tags: ['bench', 'review'] },
      agentKind: 'reviewer',
    },
    spec: { role: 'You review code.' },
    security: {
      tier: 'tier_2_write_limited',
      capabilities: { required: ['filesystem-read'], optional: ['network-outbound'] },
      sandboxing: { required: true, type: 'container', resource_limits: { max_memory_mb: 512, max_cpu_cores: 1, max_execution_seconds: 60 } },
    },
  });
}

async function loadAgents(db: Db, namespace: string): Promise<void> {
  await db.namespace.create({ data: { name: namespace, ownerSub: 'bench' } });
  for (let batch = 0; batch < AGENTS; batch += 1000) {
    const data = Array.from({ length: 1000 }, (_, k) => {
      const i = batch + k;
      const words = [pick(WORDS, i), pick(WORDS, i * 7 + 3), pick(WORDS, i * 13 + 5)];
      const capabilities = [pick(CAPABILITIES, i), pick(CAPABILITIES, i * 3 + 1)];
      const compliance = i % 5 === 0 ? [pick(FRAMEWORKS, i)] : [];
      const tags = [pick(WORDS, i * 11 + 2)];
      const kind = pick(KINDS, i);
      const agentKind = pick(AGENT_KINDS, i);
      return {
        namespace,
        name: `${words[0]}-${words[1]}-${i}`,
        description: `An agent for ${words.join(', ')} work, number ${i}.`,
        kind,
        agentKind,
        tier: pick(TIERS, i),
        status: 'active',
        capabilities,
        tags,
        labels: { domain: words[2] },
        compliance,
        certified: i % 3 === 0,
        latestVersion: '1.0.0',
        searchTerms: [namespace, kind, agentKind, ...tags, ...capabilities, ...compliance, 'domain', words[2]].join(' '),
        createdBy: 'bench',
      };
    });
    await db.agent.createMany({ data });
  }
  await db.$executeRawUnsafe('ANALYZE "registry"."Agent"');
}

async function cleanUp(db: Db, namespaces: string[]): Promise<void> {
  for (const namespace of namespaces) {
    await db.$executeRaw`DELETE FROM "registry"."AgentDailyStat" WHERE "agentId" IN (SELECT "id" FROM "registry"."Agent" WHERE "namespace" = ${namespace})`;
    await db.$executeRaw`DELETE FROM "registry"."Certification" WHERE "agentId" IN (SELECT "id" FROM "registry"."Agent" WHERE "namespace" = ${namespace})`;
    await db.$executeRaw`DELETE FROM "registry"."AgentVersion" WHERE "agentId" IN (SELECT "id" FROM "registry"."Agent" WHERE "namespace" = ${namespace})`;
    await db.$executeRaw`DELETE FROM "registry"."Agent" WHERE "namespace" = ${namespace}`;
    await db.$executeRaw`DELETE FROM "registry"."Namespace" WHERE "name" = ${namespace}`;
  }
}

async function main(): Promise<void> {
  const service = await startTestService(registryService, {
    env: { SERVICE_ROLE: 'api', REGISTRY_RATE_LIMIT: '10000000', REGISTRY_RATE_BURST: '10000000', REGISTRY_PUBLIC_URL: 'http://127.0.0.1' },
  });
  const { issuer } = service;
  const db = service.infra.db;
  const base = `${service.url}/api/v1`;
  const sub = `bench-${randomUUID()}`;
  const auth = issuer.bearer(['registry:read', 'registry:write'], { sub, expiresInSeconds: 3600 });
  const publishNs = `bench-publish-${randomUUID().slice(0, 8)}`;
  const searchNs = `bench-search-${randomUUID().slice(0, 8)}`;
  const expect = async (res: Response, status: number) => {
    if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${await res.text()}`);
    await res.arrayBuffer();
  };

  try {
    console.log(`registry benchmark (node ${process.version}, ${CONCURRENCY} concurrent clients, ${SECONDS}s per throughput case)\n`);

    // 1. Publish: CONCURRENCY agents, each getting new patch versions (no two requests contend for one agent's lock).
    const agents = Array.from({ length: CONCURRENCY * 2 }, (_, i) => `agent-${i}`);
    let counter = 0;
    await throughput('publish (POST /agents, JSON manifest)', async () => {
      const n = counter++;
      const name = agents[n % agents.length];
      const res = await fetch(`${base}/agents`, {
        method: 'POST',
        headers: { authorization: auth, 'content-type': 'application/json' },
        body: manifestJson(publishNs, name, `1.0.${Math.floor(n / agents.length)}`),
      });
      await expect(res, 201);
    });

    // 2. Manifest fetch: the stored bytes of one version, and of `latest`.
    const manifestUrl = `${base}/agents/${publishNs}/agent-0/versions/1.0.0/manifest`;
    await throughput('manifest fetch (GET .../1.0.0/manifest)', async () => {
      await expect(await fetch(manifestUrl, { headers: { authorization: auth } }), 200);
    });
    await throughput('manifest fetch, converted to YAML', async () => {
      await expect(await fetch(manifestUrl, { headers: { authorization: auth, accept: 'application/yaml' } }), 200);
    });
    const etag = (await fetch(manifestUrl, { method: 'HEAD', headers: { authorization: auth } })).headers.get('etag') ?? '';
    await throughput('manifest revalidation (If-None-Match → 304)', async () => {
      await expect(await fetch(manifestUrl, { headers: { authorization: auth, 'if-none-match': etag } }), 304);
    });

    // 3. Search with 10,000 agents of their own namespace loaded.
    const loadStart = Date.now();
    await loadAgents(db, searchNs);
    const total = await db.agent.count({ where: { deletedAt: null } });
    console.log(
      `\nloaded ${AGENTS.toLocaleString('en-US')} agents in ${((Date.now() - loadStart) / 1000).toFixed(1)} s (${total.toLocaleString('en-US')} live agents in the registry)`,
    );
    const queries = [
      (i: number) => `q=${pick(WORDS, i)}`,
      (i: number) => `q=${pick(WORDS, i)}%20${pick(WORDS, i * 7 + 3)}`,
      (i: number) => `q=${pick(WORDS, i).slice(0, 4)}`,
      (i: number) => `q=${pick(WORDS, i)}&certified=true`,
      (i: number) => `q=${pick(WORDS, i)}&capability=${pick(CAPABILITIES, i)}&tier=${pick(TIERS, i)}`,
      (i: number) => `q=${pick(WORDS, i)}&compliance=${pick(FRAMEWORKS, i)}`,
      (i: number) => `q=${pick(WORDS, i)}&namespace=${searchNs}&offset=100`,
      (i: number) => `q=${pick(WORDS, i)}-${pick(WORDS, i * 7 + 3)}-${i}`,
    ];
    const search = async (i: number) => {
      const query = pick(queries, i)(Math.floor(i / queries.length));
      const started = process.hrtime.bigint();
      const res = await fetch(`${base}/search?${query}&limit=20`, { headers: { authorization: auth } });
      await expect(res, 200);
      return Number(process.hrtime.bigint() - started) / 1e6;
    };
    for (let i = 0; i < 50; i++) await search(i);
    const report = (label: string, latencies: number[]) => {
      const sorted = [...latencies].sort((a, b) => a - b);
      const p95 = percentile(sorted, 95);
      console.log(
        `${label.padEnd(44)} p50 ${percentile(sorted, 50).toFixed(1)} ms   p95 ${p95.toFixed(1)} ms   p99 ${percentile(sorted, 99).toFixed(1)} ms   ` +
          `(${sorted.length} searches) ${p95 < SEARCH_TARGET_MS ? 'meets' : 'MISSES'} the ${SEARCH_TARGET_MS} ms target`,
      );
    };
    const sequential: number[] = [];
    for (let i = 0; i < SEARCHES; i++) sequential.push(await search(i));
    report('search, one client', sequential);
    const concurrent: number[] = [];
    let index = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (index < SEARCHES) concurrent.push(await search(index++));
      }),
    );
    report('search, 4 concurrent clients', concurrent);
    await service.parts.usage.flush();
  } finally {
    await service.parts.usage.flush();
    await cleanUp(db, [publishNs, searchNs]);
    service.server.closeAllConnections();
    await service.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
