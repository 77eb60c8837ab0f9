// local-models overhead per /api/generate call over the backend's own time (target: p95 < 2 ms).
// A fake Ollama server answering instantly runs in this process; the service (startService, as in
// production: token check, rate limit in Redis, model routing, proxy) runs here too on a loopback
// port. Each round sends the same request once straight to the fake Ollama and once through the
// service, alternating, over keep-alive connections, so both see the same machine load. Reported:
// the latency percentiles of both and the difference of each percentile (the service's overhead),
// for a whole answer (`stream: false`) and for a streamed one (NDJSON, read to the end).
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

const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

/** One POST read to its last byte; resolves with the milliseconds it took. */
function timedPost(url: URL, payload: Buffer, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = http.request(
      url,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': payload.length, ...headers } },
      (res) => {
        res.on('data', () => undefined);
        res.on('end', () => (res.statusCode === 200 ? resolve(performance.now() - t0) : reject(new Error(`status ${res.statusCode}`))));
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
}

async function measure(name: string, ollamaUrl: string, serviceUrl: string, bearer: string, body: object): Promise<Row> {
  const payload = Buffer.from(JSON.stringify(body));
  const direct = new URL('/api/generate', ollamaUrl);
  const service = new URL('/api/generate', serviceUrl);
  const auth = { authorization: bearer };
  for (let i = 0; i < WARMUP; i++) {
    await timedPost(direct, payload, {});
    await timedPost(service, payload, auth);
  }
  const row: Row = { name, direct: [], service: [] };
  for (let i = 0; i < ROUNDS; i++) {
    // Alternate the order so neither side always runs on a warmer cache.
    if (i % 2 === 0) {
      row.direct.push(await timedPost(direct, payload, {}));
      row.service.push(await timedPost(service, payload, auth));
    } else {
      row.service.push(await timedPost(service, payload, auth));
      row.direct.push(await timedPost(direct, payload, {}));
    }
  }
  row.direct.sort((a, b) => a - b);
  row.service.sort((a, b) => a - b);
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
    console.log(`local-models /api/generate overhead over an instant Ollama backend (${ROUNDS} rounds, sequential, keep-alive)\n`);
    console.log(
      `${'case'.padEnd(34)} ${'direct p50'.padStart(11)} ${'service p50'.padStart(12)} ${'overhead p50'.padStart(13)} ${'direct p95'.padStart(11)} ${'service p95'.padStart(12)} ${'overhead p95'.padStart(13)}`,
    );
    const rows = [
      await measure('stream: false (one object)', ollama.url, service.url, bearer, {
        model: 'llama3.2',
        prompt: 'one two three four five',
        stream: false,
        options: { num_predict: 5 },
      }),
      await measure('streamed NDJSON (6 lines)', ollama.url, service.url, bearer, {
        model: 'llama3.2',
        prompt: 'one two three four five',
        options: { num_predict: 5 },
      }),
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

    // CPU per call: the same whole-answer request, straight to the fake Ollama, then through the service.
    const payload = Buffer.from(JSON.stringify({ model: 'llama3.2', prompt: 'one two three four five', stream: false, options: { num_predict: 5 } }));
    const direct = await cpuPerCall(new URL('/api/generate', ollama.url), payload, {}, ROUNDS);
    const through = await cpuPerCall(new URL('/api/generate', service.url), payload, { authorization: bearer }, ROUNDS);
    console.log(
      `CPU per call (this process: client, fake Ollama and service): direct ${fmt(direct, 3)} ms, through the service ${fmt(through, 3)} ms, the service's own ${fmt(through - direct, 3)} ms`,
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
