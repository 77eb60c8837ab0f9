// What the gateway's model route adds over calling local-models directly (targets: p50 < 2 ms,
// p99 < 5 ms). A fake Ollama answering instantly, local-models and the gateway (front door, token
// check, Redis rate limit, allow-list and budget, routing, pass-through, usage count, GenAI span) all
// run in this process on loopback ports. Each round sends the same /v1/chat/completions once to
// local-models and once to the gateway, alternating which goes first, sequentially over keep-alive
// connections, so both see the same machine load; whole answers and streamed ones (SSE read to the
// end). Reported: medians and p99 of both, their differences, CPU per request, the load average.
// Run: npm run bench:gateway-models     (BENCH_ROUNDS, default 3000; BENCH_WARMUP, default 300)
import { startService } from '@platform/service-kit';
import { startFakeOllama, testDatabaseUrl, testRedisUrl } from '@platform/testing';
import http from 'node:http';
import os from 'node:os';
import { gatewayService } from '../../apps/gateway/src/service';
import { Fakes } from '../../apps/gateway/test/fakes';
import { localModelsService } from '../../apps/local-models/src/service';
import { fmt, percentile } from './lib/load';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 300);
const TARGET_P50_MS = 2;
const TARGET_P99_MS = 5;

const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

/** One POST read to its last byte; resolves with the milliseconds it took. */
function timedPost(url: URL, payload: Buffer, authorization: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = http.request(
      url,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': payload.length, authorization } },
      (res) => {
        res.on('data', () => undefined);
        res.on('end', () => (res.statusCode === 200 ? resolve(performance.now() - t0) : reject(new Error(`${url.host}: status ${res.statusCode}`))));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

async function measure(direct: URL, gateway: URL, payload: Buffer, authorization: string): Promise<{ direct: number[]; gateway: number[] }> {
  for (let i = 0; i < WARMUP; i++) {
    await timedPost(direct, payload, authorization);
    await timedPost(gateway, payload, authorization);
  }
  const row = { direct: [] as number[], gateway: [] as number[] };
  for (let i = 0; i < ROUNDS; i++) {
    if (i % 2 === 0) {
      row.direct.push(await timedPost(direct, payload, authorization));
      row.gateway.push(await timedPost(gateway, payload, authorization));
    } else {
      row.gateway.push(await timedPost(gateway, payload, authorization));
      row.direct.push(await timedPost(direct, payload, authorization));
    }
  }
  row.direct.sort((a, b) => a - b);
  row.gateway.sort((a, b) => a - b);
  return row;
}

/** CPU milliseconds of this whole process per request (client, Ollama, local-models and, through it, the gateway). */
async function cpuPerCall(url: URL, payload: Buffer, authorization: string, count: number): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 0; i < count; i++) await timedPost(url, payload, authorization);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / count;
}

async function main(): Promise<void> {
  const ollama = await startFakeOllama();
  const fakes = await new Fakes({ record: false, replyDelayMs: 0 }).start();
  const localModels = await startService(localModelsService, {
    env: {
      PORT: '0',
      LOG_LEVEL: 'silent',
      OTEL_SDK_DISABLED: 'true',
      DATABASE_URL: testDatabaseUrl,
      REDIS_URL: testRedisUrl,
      OLLAMA_URL: ollama.url,
      LOCAL_MODELS_DIR: '/nonexistent/gateway-models-bench',
      LOCAL_MODELS_RATE_LIMIT: '100000000',
      LOCAL_MODELS_RATE_LIMIT_BURST: '100000000',
    },
    verifier: fakes.issuer.verifier(),
  });
  const gateway = await startService(gatewayService, {
    env: {
      ...fakes.env(),
      PORT: '0',
      LOG_LEVEL: 'silent',
      OTEL_SDK_DISABLED: 'true',
      DATABASE_URL: testDatabaseUrl,
      REDIS_URL: testRedisUrl,
      SERVICE_ROLE: 'api',
      GATEWAY_RATE_BURST: '100000000',
      GATEWAY_RATE_LIMIT: '100000000',
      LOCAL_MODELS_URL: localModels.url,
    },
    verifier: fakes.issuer.verifier(),
  });
  const authorization = fakes.issuer.bearer(['models:invoke', 'models:read'], { sub: `bench-${Date.now()}` });
  const body = { model: 'llama3.2', messages: [{ role: 'user', content: 'one two three four five' }], max_tokens: 5 };
  try {
    console.log(`gateway /v1/chat/completions over local-models' own (${ROUNDS} rounds per case, alternating, sequential, keep-alive)\n`);
    console.log(
      `${'case'.padEnd(10)} ${'direct p50'.padStart(11)} ${'gateway p50'.padStart(12)} ${'added p50'.padStart(10)} ${'direct p99'.padStart(11)} ${'gateway p99'.padStart(12)} ${'added p99'.padStart(10)}`,
    );
    let met = true;
    for (const [name, sent] of [
      ['whole', body],
      ['streamed', { ...body, stream: true, stream_options: { include_usage: true } }],
    ] as const) {
      const payload = Buffer.from(JSON.stringify(sent));
      const row = await measure(new URL('/v1/chat/completions', localModels.url), new URL('/v1/chat/completions', gateway.url), payload, authorization);
      const [d50, g50, d99, g99] = [percentile(row.direct, 50), percentile(row.gateway, 50), percentile(row.direct, 99), percentile(row.gateway, 99)];
      met &&= g50 - d50 < TARGET_P50_MS && g99 - d99 < TARGET_P99_MS;
      console.log(
        `${name.padEnd(10)} ${fmt(d50, 3).padStart(8)} ms ${fmt(g50, 3).padStart(9)} ms ${fmt(g50 - d50, 3).padStart(7)} ms ${fmt(d99, 3).padStart(8)} ms ${fmt(g99, 3).padStart(9)} ms ${fmt(g99 - d99, 3).padStart(7)} ms`,
      );
    }
    console.log(`\ntargets (added p50 < ${TARGET_P50_MS} ms, p99 < ${TARGET_P99_MS} ms): ${met ? 'met' : 'NOT met'}`);
    const payload = Buffer.from(JSON.stringify(body));
    const direct = await cpuPerCall(new URL('/v1/chat/completions', localModels.url), payload, authorization, ROUNDS);
    const through = await cpuPerCall(new URL('/v1/chat/completions', gateway.url), payload, authorization, ROUNDS);
    console.log(
      `CPU per request (this process): direct ${fmt(direct, 3)} ms, through the gateway ${fmt(through, 3)} ms, the gateway's own ${fmt(through - direct, 3)} ms`,
    );
    console.log(
      `load average during the run: ${os
        .loadavg()
        .map((value) => value.toFixed(1))
        .join(' ')} on ${os.cpus().length} cores`,
    );
  } finally {
    agent.destroy();
    await gateway.stop();
    await localModels.stop();
    await fakes.stop();
    await ollama.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
