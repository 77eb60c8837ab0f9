/**
 * What the shared request path costs: `npm run bench:http`.
 * The same one-route JSON endpoint served three ways, each in its own child process and loaded by
 * autocannon (c=32) in alternating rounds: plain Express with express.json (the floor), the
 * platform's createServiceApp (request id, logs, metrics, zod validation, error shape), and the
 * same behind RS256 token verification and a permission check.
 */
import autocannon from 'autocannon';
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fmt, forkReady, processCpuMicros } from './lib/load';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const MODES = ['bare', 'kit', 'kit-auth'] as const;

async function start(mode: string, port: number): Promise<{ child: ChildProcess; authorization: string }> {
  const { child, ready } = await forkReady<{ authorization: string }>(`${mode} server`, path.join(__dirname, 'lib/http-server.ts'), [mode, String(port)], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, OTEL_SDK_DISABLED: 'true' },
  });
  return { child, authorization: ready.authorization };
}

async function run(pid: number, port: number, authorization?: string) {
  const before = processCpuMicros(pid);
  const result = await autocannon({
    url: `http://127.0.0.1:${port}/api/echo`,
    method: 'POST',
    connections: 32,
    duration: SECONDS,
    headers: { 'content-type': 'application/json', ...(authorization && { authorization }) },
    body: JSON.stringify({ name: 'bench' }),
  });
  const cpu = (processCpuMicros(pid) - before) / result.requests.total;
  return { rps: result.requests.average, cpu, p50: result.latency.p50, p99: result.latency.p99, errors: result.errors + result.non2xx };
}

async function main(): Promise<void> {
  const results: Record<string, Array<{ rps: number; cpu: number; p50: number; p99: number; errors: number }>> = { bare: [], kit: [], 'kit-auth': [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const [index, mode] of MODES.entries()) {
      const port = 3960 + index;
      const { child, authorization } = await start(mode, port);
      const token = mode === 'kit-auth' ? authorization : undefined;
      await run(child.pid!, port, token); // warm-up
      results[mode]!.push(await run(child.pid!, port, token));
      child.kill();
    }
  }
  const best = (mode: string) => results[mode]!.reduce((a, b) => (b.rps > a.rps ? b : a));
  const floor = best('bare').rps;
  console.log(`\nshared request path, c=32, ${SECONDS} s x ${ROUNDS} rounds (best round)`);
  for (const mode of MODES) {
    const r = best(mode);
    console.log(
      `  ${mode.padEnd(9)} ${fmt(r.rps).padStart(7)} req/s  ${fmt(r.cpu).padStart(4)} µs CPU/req  p50 ${r.p50} ms  p99 ${r.p99} ms  errors ${r.errors}  ${fmt((100 * r.rps) / floor)}% of bare Express, ${fmt(r.cpu / best('bare').cpu, 2)}x its CPU`,
    );
  }
}

void main();
