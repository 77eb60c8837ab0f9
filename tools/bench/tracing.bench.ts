// Tracing service speed, over real HTTP against the real Postgres and Redis:
//   1. ingestion: OTLP protobuf batches of 100 spans from 8 concurrent clients (BENCH_SECONDS,
//      default 20 s here instead of the issue's 60 s: the machine is shared), spans/s, batch p50/p99,
//      and the service's peak RSS (VmHWM of its process);
//   2. beside it, in the same run, the physical limits: protobuf decode alone (protobufjs, the same
//      bodies) and a raw multi-row INSERT ... SELECT FROM unnest of the same rows alone (pg, no HTTP);
//   3. GET /api/traces/{id} and a project's first page (GET /api/projects/{p}/spans) p50/p95/p99
//      with BENCH_SEED_SPANS spans stored (default 1,000,000, seeded by SQL into bench projects).
// The service runs as its own process (spawnService); everything the bench adds is removed at the end.
// Run: npm run bench:tracing   (BENCH_SECONDS, BENCH_CONCURRENCY, BENCH_SEED_SPANS, BENCH_QUERIES)
import { spawnService, TestIssuer, testDatabaseUrl } from '@platform/testing';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { Client } from 'pg';
import { ExportTraceServiceRequest, decodeProtobuf } from '../../apps/tracing/src/ingest/otlp.codec';
import { convertRequest } from '../../apps/tracing/src/ingest/span-rows';
import { fmt, load, percentile } from './lib/load';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const SEED_SPANS = Number(process.env.BENCH_SEED_SPANS ?? 1_000_000);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 300);
const SPANS_PER_BATCH = 100;
const TRACES_PER_BATCH = 10;
const KEY = `bench-${randomBytes(8).toString('hex')}`;
const RUN = randomBytes(4).toString('hex');
const INGEST_PROJECT = `bench-ingest-${RUN}`;
const SEED_PROJECTS = Array.from({ length: 4 }, (_, i) => `bench-seed-${RUN}-${i}`);

/** One protobuf body of 100 spans in 10 traces, and where each trace id sits in it (patched per request). */
function template(): { body: Buffer; offsets: number[][] } {
  const now = BigInt(Date.now()) * 1_000_000n;
  const traceIds = Array.from({ length: TRACES_PER_BATCH }, () => randomBytes(16));
  const spans = Array.from({ length: SPANS_PER_BATCH }, (_, i) => ({
    traceId: traceIds[i % TRACES_PER_BATCH],
    spanId: randomBytes(8),
    ...(i >= TRACES_PER_BATCH && { parentSpanId: randomBytes(8) }),
    name: i % 3 === 0 ? 'llm.completion' : i % 3 === 1 ? 'tool.call' : 'http.request',
    kind: 1 + (i % 3),
    startTimeUnixNano: String(now + BigInt(i) * 1000n),
    endTimeUnixNano: String(now + BigInt(i) * 1000n + 2_500_000n),
    attributes: [
      { key: 'llm.model_name', value: { stringValue: 'tiny-model' } },
      { key: 'llm.token_count.total', value: { intValue: String(100 + i) } },
      { key: 'input.value', value: { stringValue: `question number ${i} about something reasonably long to look like a prompt` } },
      { key: 'http.status_code', value: { intValue: '200' } },
    ],
    status: { code: i % 20 === 0 ? 2 : 1 },
  }));
  const body = Buffer.from(
    ExportTraceServiceRequest.encode(
      ExportTraceServiceRequest.fromObject({
        resourceSpans: [
          {
            resource: {
              attributes: [
                { key: 'openinference.project.name', value: { stringValue: INGEST_PROJECT } },
                { key: 'service.name', value: { stringValue: 'bench' } },
              ],
            },
            scopeSpans: [{ scope: { name: 'bench' }, spans }],
          },
        ],
      }),
    ).finish(),
  );
  const offsets = traceIds.map((id) => {
    const found: number[] = [];
    for (let at = body.indexOf(id); at >= 0; at = body.indexOf(id, at + 1)) found.push(at);
    return found;
  });
  return { body, offsets };
}

/** A copy of the template with fresh trace ids (so no span is a duplicate of another). */
function freshBody(t: { body: Buffer; offsets: number[][] }): Buffer {
  const body = Buffer.from(t.body);
  for (const positions of t.offsets) {
    const id = randomBytes(16);
    for (const at of positions) id.copy(body, at);
  }
  return body;
}

function postProtobuf(agent: http.Agent, url: URL, body: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: 'POST', agent, headers: { 'content-type': 'application/x-protobuf', 'content-length': body.length, 'x-api-key': KEY } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function getJson(agent: http.Agent, url: URL, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { agent, headers: { authorization: `Bearer ${token}` } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

function peakRss(pid: number): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) * 1024 : 0;
}

/** protobuf decode alone (decode + plain objects, as the service does), and decode + conversion to rows. */
function decodeLimits(t: { body: Buffer; offsets: number[][] }) {
  const body = freshBody(t);
  const measure = (fn: () => void) => {
    const deadline = performance.now() + 3000;
    const start = performance.now();
    let batches = 0;
    while (performance.now() < deadline) {
      fn();
      batches++;
    }
    return (batches * SPANS_PER_BATCH) / ((performance.now() - start) / 1000);
  };
  const decode = measure(() => decodeProtobuf(body));
  const far = 10n ** 30n;
  const convert = measure(() => convertRequest(decodeProtobuf(body), { oldestNano: 0n, newestNano: far }));
  return { decode, convert };
}

/** The same rows written straight to Postgres by INSERT ... SELECT FROM unnest, 2,000 per statement, 2 connections. */
async function insertLimit(t: { body: Buffer; offsets: number[][] }): Promise<number> {
  const rows = Array.from({ length: 20 }, () => convertRequest(decodeProtobuf(freshBody(t)), { oldestNano: 0n, newestNano: 10n ** 30n }).spans).flat();
  const clients = await Promise.all(
    [0, 1].map(async () => {
      const client = new Client({ connectionString: testDatabaseUrl, options: '-c search_path=tracing' });
      await client.connect();
      return client;
    }),
  );
  const sql = `INSERT INTO spans (project, trace_id, span_id, parent_span_id, name, kind, status_code, status_message, start_time,
      start_unix_nano, end_unix_nano, duration_nano, trace_state, flags, attributes, events, links, resource, scope, dropped)
    SELECT p, t, s, pa, n, k, sc, sm, to_timestamp((st / 1000)::double precision / 1000000), st, en, en - st, ts, f, a, e, l, r, sco, d
    FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::smallint[], $7::smallint[], $8::text[],
                $9::bigint[], $10::bigint[], $11::text[], $12::int[], $13::jsonb[], $14::jsonb[], $15::jsonb[], $16::jsonb[], $17::jsonb[], $18::jsonb[])
      AS u(p, t, s, pa, n, k, sc, sm, st, en, ts, f, a, e, l, r, sco, d) ON CONFLICT DO NOTHING`;
  let written = 0;
  const deadline = performance.now() + 8000;
  const start = performance.now();
  await Promise.all(
    clients.map(async (client) => {
      while (performance.now() < deadline) {
        const batch = rows.map((row) => ({ ...row, traceId: randomBytes(16).toString('hex') }));
        await client.query(sql, [
          batch.map((r) => `${r.project}-raw`),
          batch.map((r) => r.traceId),
          batch.map((r) => r.spanId),
          batch.map((r) => r.parentSpanId),
          batch.map((r) => r.name),
          batch.map((r) => r.kind),
          batch.map((r) => r.statusCode),
          batch.map((r) => r.statusMessage),
          batch.map((r) => r.startUnixNano.toString()),
          batch.map((r) => r.endUnixNano.toString()),
          batch.map((r) => r.traceState),
          batch.map((r) => r.flags),
          batch.map((r) => r.attributes),
          batch.map((r) => r.events),
          batch.map((r) => r.links),
          batch.map((r) => r.resource),
          batch.map((r) => r.scope),
          batch.map((r) => r.dropped),
        ]);
        written += batch.length;
      }
    }),
  );
  const perSecond = written / ((performance.now() - start) / 1000);
  await Promise.all(clients.map((client) => client.end()));
  return perSecond;
}

/** Seeds spans by SQL: traces of 20 spans over the last 6 days, spread over the seed projects. */
async function seed(db: Client, total: number): Promise<string[]> {
  const day = 86_400_000;
  for (let d = 0; d <= 7; d++) {
    const start = new Date(Math.floor((Date.now() - d * day) / day) * day);
    const name = `spans_p${start.toISOString().slice(0, 10).replace(/-/g, '')}`;
    await db.query(
      `CREATE TABLE IF NOT EXISTS "${name}" PARTITION OF spans FOR VALUES FROM ('${start.toISOString()}') TO ('${new Date(start.getTime() + day).toISOString()}')`,
    );
  }
  const chunk = 100_000;
  for (let offset = 0; offset < total; offset += chunk) {
    const n = Math.min(chunk, total - offset);
    await db.query(
      `INSERT INTO spans (project, trace_id, span_id, parent_span_id, name, kind, status_code, start_time, start_unix_nano, end_unix_nano, duration_nano, attributes, events, links, resource, scope)
       SELECT ($3::text[])[1 + ((g / 20) % cardinality($3::text[]))],
              md5('${RUN}' || (g / 20)::text), substr(md5('${RUN}s' || g::text), 1, 16),
              CASE WHEN g % 20 = 0 THEN NULL ELSE substr(md5('${RUN}s' || (g - g % 20)::text), 1, 16) END,
              (ARRAY['llm.completion','tool.call','http.request','agent.step'])[1 + g % 4], 1 + g % 3, CASE WHEN g % 50 = 0 THEN 2 ELSE 1 END,
              to_timestamp(t / 1e9), t, t + 2500000, 2500000,
              jsonb_build_object('llm.model_name', jsonb_build_object('stringValue', 'tiny-model'), 'llm.token_count.total', jsonb_build_object('intValue', (100 + g % 50)::text), 'input.value', jsonb_build_object('stringValue', 'question ' || g)),
              '[]', '[]', jsonb_build_object('attributes', jsonb_build_object('service.name', jsonb_build_object('stringValue', 'bench'))), '{"name":"bench"}'
       FROM (SELECT g, ((extract(epoch FROM now()) * 1e9)::bigint - ((g::numeric * 518400000000000) / $2::bigint)::bigint) AS t
             FROM generate_series($1::bigint, $1::bigint + $4::bigint - 1) g) x`,
      [offset, total, SEED_PROJECTS, n],
    );
    process.stdout.write(`\r  seeded ${fmt(offset + n)} spans`);
  }
  process.stdout.write('\n');
  const { rows } = await db.query(`SELECT DISTINCT trace_id FROM spans WHERE project = ANY($1) LIMIT 2000`, [SEED_PROJECTS]);
  return rows.map((row) => row.trace_id as string);
}

async function main(): Promise<void> {
  const t = template();
  console.log(`tracing benchmark on ${require('node:os').cpus().length} cores (load average ${require('node:os').loadavg()[0].toFixed(1)})\n`);

  const limits = decodeLimits(t);
  console.log(`protobuf decode alone (protobufjs)                 ${fmt(limits.decode).padStart(10)} spans/s  (one core)`);
  console.log(`protobuf decode + validation into rows             ${fmt(limits.convert).padStart(10)} spans/s  (one core)`);

  const db = new Client({ connectionString: testDatabaseUrl, options: '-c search_path=tracing' });
  await db.connect();
  const issuer = await new TestIssuer().start();
  const service = await spawnService('tracing', {
    env: {
      TRACING_INGEST_KEYS: KEY,
      TRACING_GRPC_PORT: '0',
      LOG_LEVEL: 'info',
      AUTH_URL: new URL(issuer.jwksUri).origin,
      AUTH_ISSUER: issuer.issuer,
      TRACING_EVAL_CONCURRENCY: '1',
    },
    timeoutMs: 120_000,
  }).catch((error) => {
    throw error;
  });
  try {
    const insert = await insertLimit(t);
    console.log(`raw multi-row INSERT (unnest, 2,000 rows, 2 conns) ${fmt(insert).padStart(10)} spans/s  (pg, no HTTP)`);

    const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
    const ingestUrl = new URL('/v1/traces', service.url);
    await load(CONCURRENCY, 2, () => postProtobuf(agent, ingestUrl, freshBody(t))); // warm-up
    const ingest = await load(CONCURRENCY, SECONDS, () => postProtobuf(agent, ingestUrl, freshBody(t)));
    const spansPerSecond = ((ingest.requests - ingest.errors) * SPANS_PER_BATCH) / ingest.seconds;
    console.log(
      `OTLP protobuf ingestion, ${CONCURRENCY} clients x 100-span batches  ${fmt(spansPerSecond).padStart(10)} spans/s  ` +
        `(${fmt(ingest.requests)} batches in ${ingest.seconds.toFixed(1)} s, ${ingest.errors} errors, batch p50 ${ingest.p50.toFixed(1)} ms, p99 ${ingest.p99.toFixed(1)} ms)`,
    );
    console.log(`tracing service peak RSS                            ${fmt(peakRss(service.child.pid!) / 1024 / 1024).padStart(10)} MiB`);

    console.log(`\nseeding ${fmt(SEED_SPANS)} spans for the query latencies...`);
    const seedStart = performance.now();
    const traceIds = await seed(db, SEED_SPANS);
    await db.query('ANALYZE spans');
    const [{ count }] = (await db.query('SELECT count(*)::int AS count FROM spans')).rows;
    console.log(`  ${fmt(count)} spans stored in total (seeded in ${((performance.now() - seedStart) / 1000).toFixed(0)} s)`);
    const token = issuer.token({ permissions: ['traces:read'] });
    const timed = async (urls: URL[]) => {
      const latencies: number[] = [];
      for (const url of urls) {
        const t0 = performance.now();
        const status = await getJson(agent, url, token);
        if (status !== 200) throw new Error(`${url} answered ${status}`);
        latencies.push(performance.now() - t0);
      }
      latencies.sort((a, b) => a - b);
      return `p50 ${percentile(latencies, 50).toFixed(1)} ms, p95 ${percentile(latencies, 95).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms (${latencies.length} requests)`;
    };
    const traceUrls = Array.from({ length: QUERIES }, (_, i) => new URL(`/api/traces/${traceIds[(i * 7) % traceIds.length]}`, service.url));
    await timed(traceUrls.slice(0, 20));
    console.log(`GET /api/traces/{id} (20 spans)                    ${await timed(traceUrls)}`);
    const pageUrls = Array.from({ length: QUERIES }, (_, i) => new URL(`/api/projects/${SEED_PROJECTS[i % SEED_PROJECTS.length]}/spans?limit=50`, service.url));
    await timed(pageUrls.slice(0, 20));
    console.log(`GET /api/projects/{p}/spans first page (50)        ${await timed(pageUrls)}  (${fmt(SEED_SPANS / SEED_PROJECTS.length)} spans per project)`);
    agent.destroy();
  } finally {
    await service.stop();
    await issuer.stop();
    console.log('\ncleaning up...');
    await db.query(`DELETE FROM spans WHERE project = ANY($1)`, [[...SEED_PROJECTS, INGEST_PROJECT, `${INGEST_PROJECT}-raw`]]);
    await db.end();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
