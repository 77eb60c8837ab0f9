// local-models overhead per call over the backend's own time (target: p95 < 2 ms), for Ollama's
// /api/generate and /api/chat and for OpenAI's /v1/chat/completions beside them in the same run, and
// the time to the first streamed token through /v1/chat/completions (target: within 1 ms of the backend's).
// A fake Ollama server answering instantly runs in this process; the service (startService, as in
// production: token check, rate limit in Redis, model routing, proxy) runs here too on a loopback
// port. Each round sends the same request once straight to the fake Ollama and once through the
// service, alternating, over keep-alive connections, so both see the same machine load. Reported:
// the latency percentiles of both and the difference of each percentile (the service's overhead),
// for a whole answer (`stream: false`) and for a streamed one (NDJSON or SSE, read to the end). The
// baseline of every case is the fake Ollama's own route the service calls (/api/chat for /v1).
// Run: npm run bench:local-models     (BENCH_ROUNDS, default 3000; BENCH_WARMUP, default 300;
//      BENCH_FLUSH_MS sets LOCAL_MODELS_USAGE_FLUSH_MS, e.g. 600000 to see the cost of usage writes)
import { startService } from '@platform/service-kit';
import { startFakeOllama, TestIssuer, testRedisUrl } from '@platform/testing';
import http from 'node:http';
import os from 'node:os';
import { localModelsService } from '../../apps/local-models/src/service';
import { fmt, percentile } from './lib/load';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 300);
const TARGET_P95_MS = 2;
const TARGET_FIRST_TOKEN_MS = 1;

const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

/** One POST read to its last byte; resolves with the milliseconds it took, and to its first body chunk. */
function timedPost(url: URL, payload: Buffer, headers: Record<string, string>): Promise<number> {
  return timedCall(url, payload, headers).then(({ total }) => total);
}

function timedCall(url: URL, payload: Buffer, headers: Record<string, string>): Promise<{ total: number; first: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    let first = 0;
    const req = http.request(
      url,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': payload.length, ...headers } },
      (res) => {
        res.on('data', () => (first ||= performance.now() - t0));
        res.on('end', () => (res.statusCode === 200 ? resolve({ total: performance.now() - t0, first }) : reject(new Error(`${url.pathname}: status ${res.statusCode}`))));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

interface Row {
  name: string;
  direct: number[];
  service: number[];
  directFirst: number[];
  serviceFirst: number[];
}

/** One case: the backend's own call and the service's, alternating, each timed to its end and to its first body chunk. */
async function measure(name: string, direct: { url: URL; body: object }, service: { url: URL; body: object }, bearer: string): Promise<Row> {
  const directPayload = Buffer.from(JSON.stringify(direct.body));
  const servicePayload = Buffer.from(JSON.stringify(service.body));
  const auth = { authorization: bearer };
  for (let i = 0; i < WARMUP; i++) {
    await timedCall(direct.url, directPayload, {});
    await timedCall(service.url, servicePayload, auth);
  }
  const row: Row = { name, direct: [], service: [], directFirst: [], serviceFirst: [] };
  const directOnce = async () => {
    const { total, first } = await timedCall(direct.url, directPayload, {});
    row.direct.push(total);
    row.directFirst.push(first);
  };
  const serviceOnce = async () => {
    const { total, first } = await timedCall(service.url, servicePayload, auth);
    row.service.push(total);
    row.serviceFirst.push(first);
  };
  for (let i = 0; i < ROUNDS; i++) {
    // Alternate the order so neither side always runs on a warmer cache.
    if (i % 2 === 0) {
      await directOnce();
      await serviceOnce();
    } else {
      await serviceOnce();
      await directOnce();
    }
  }
  for (const values of [row.direct, row.service, row.directFirst, row.serviceFirst]) values.sort((a, b) => a - b);
  return row;
}

/**
 * CPU milliseconds this process spends per call (user + system), sending `count` calls in a row:
 * unlike latency, CPU time is only counted while the process runs, so it holds on a busy machine.
 */
async function cpuPerCall(url: URL, payload: Buffer, headers: Record<string, string>, count: number): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 0; i < count; i++) await timedPost(url, payload, headers);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / count;
}

async function main(): Promise<void> {
  const ollama = await startFakeOllama();
  const issuer = await new TestIssuer().start();
  const service = await startService(localModelsService, {
    env: {
      PORT: '0',
      LOG_LEVEL: 'silent',
      REDIS_URL: testRedisUrl,
      OLLAMA_URL: ollama.url,
      LOCAL_MODELS_DIR: '/nonexistent/local-models-bench',
      LOCAL_MODELS_RATE_LIMIT: '100000000',
      LOCAL_MODELS_RATE_LIMIT_BURST: '100000000',
      ...(process.env.BENCH_FLUSH_MS && { LOCAL_MODELS_USAGE_FLUSH_MS: process.env.BENCH_FLUSH_MS }),
    },
    verifier: issuer.verifier(),
  });
  const bearer = issuer.bearer(['models:invoke'], { sub: `bench-${Date.now()}` });
  try {
    console.log(`local-models overhead over an instant Ollama backend (${ROUNDS} rounds per case, sequential, keep-alive; baseline: the fake Ollama's own route)\n`);
    console.log(
      `${'case'.padEnd(34)} ${'direct p50'.padStart(11)} ${'service p50'.padStart(12)} ${'overhead p50'.padStart(13)} ${'direct p95'.padStart(11)} ${'service p95'.padStart(12)} ${'overhead p95'.padStart(13)}`,
    );
    const at = (base: string, route: string) => new URL(route, base);
    const generate = { model: 'llama3.2', prompt: 'one two three four five', options: { num_predict: 5 } };
    const chat = { model: 'llama3.2', messages: [{ role: 'user', content: 'one two three four five' }], options: { num_predict: 5 } };
    const openAiChat = { model: 'llama3.2', messages: [{ role: 'user', content: 'one two three four five' }], max_tokens: 5 };
    const ollamaUrl = ollama.url;
    const rows = [
      await measure(
        '/api/generate whole',
        { url: at(ollamaUrl, '/api/generate'), body: { ...generate, stream: false } },
        { url: at(service.url, '/api/generate'), body: { ...generate, stream: false } },
        bearer,
      ),
      await measure('/api/generate streamed', { url: at(ollamaUrl, '/api/generate'), body: generate }, { url: at(service.url, '/api/generate'), body: generate }, bearer),
      await measure('/api/chat whole', { url: at(ollamaUrl, '/api/chat'), body: { ...chat, stream: false } }, { url: at(service.url, '/api/chat'), body: { ...chat, stream: false } }, bearer),
      await measure(
        '/v1/chat/completions whole',
        { url: at(ollamaUrl, '/api/chat'), body: { ...chat, stream: false } },
        { url: at(service.url, '/v1/chat/completions'), body: openAiChat },
        bearer,
      ),
      await measure('/api/chat streamed', { url: at(ollamaUrl, '/api/chat'), body: chat }, { url: at(service.url, '/api/chat'), body: chat }, bearer),
      await measure(
        '/v1/chat/completions streamed',
        { url: at(ollamaUrl, '/api/chat'), body: chat },
        { url: at(service.url, '/v1/chat/completions'), body: { ...openAiChat, stream: true, stream_options: { include_usage: true } } },
        bearer,
      ),
    ];
    let worst = 0;
    for (const row of rows) {
      const [d50, s50, d95, s95] = [percentile(row.direct, 50), percentile(row.service, 50), percentile(row.direct, 95), percentile(row.service, 95)];
      worst = Math.max(worst, s95 - d95);
      console.log(
        `${row.name.padEnd(34)} ${fmt(d50, 3).padStart(8)} ms ${fmt(s50, 3).padStart(9)} ms ${fmt(s50 - d50, 3).padStart(10)} ms ${fmt(d95, 3).padStart(8)} ms ${fmt(s95, 3).padStart(9)} ms ${fmt(s95 - d95, 3).padStart(10)} ms`,
      );
    }
    console.log(`\noverhead p95 (worst case): ${fmt(worst, 3)} ms — target < ${TARGET_P95_MS} ms: ${worst < TARGET_P95_MS ? 'met' : 'NOT met'}`);
    const streamed = rows.at(-1)!;
    const [first50, serviceFirst50] = [percentile(streamed.directFirst, 50), percentile(streamed.serviceFirst, 50)];
    const firstGap = serviceFirst50 - first50;
    console.log(
      `time to first streamed token, median: Ollama's /api/chat ${fmt(first50, 3)} ms, /v1/chat/completions ${fmt(serviceFirst50, 3)} ms, +${fmt(firstGap, 3)} ms — target within ${TARGET_FIRST_TOKEN_MS} ms: ${firstGap < TARGET_FIRST_TOKEN_MS ? 'met' : 'NOT met'} (p95 +${fmt(percentile(streamed.serviceFirst, 95) - percentile(streamed.directFirst, 95), 3)} ms)`,
    );

    // CPU per call: the same whole-answer request, straight to the fake Ollama, then through the service.
    const payload = Buffer.from(JSON.stringify({ ...generate, stream: false }));
    const direct = await cpuPerCall(at(ollamaUrl, '/api/generate'), payload, {}, ROUNDS);
    const through = await cpuPerCall(at(service.url, '/api/generate'), payload, { authorization: bearer }, ROUNDS);
    const chatDirect = await cpuPerCall(at(ollamaUrl, '/api/chat'), Buffer.from(JSON.stringify({ ...chat, stream: false })), {}, ROUNDS);
    const chatThrough = await cpuPerCall(at(service.url, '/v1/chat/completions'), Buffer.from(JSON.stringify(openAiChat)), { authorization: bearer }, ROUNDS);
    console.log(
      `CPU per call (this process: client, fake Ollama and service): /api/generate direct ${fmt(direct, 3)} ms, through the service ${fmt(through, 3)} ms, the service's own ${fmt(through - direct, 3)} ms; /v1/chat/completions the service's own ${fmt(chatThrough - chatDirect, 3)} ms`,
    );
    console.log(
      `load average during the run: ${os
        .loadavg()
        .map((value) => value.toFixed(1))
        .join(' ')} on ${os.cpus().length} cores`,
    );
  } finally {
    agent.destroy();
    await service.stop();
    await ollama.stop();
    await issuer.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
