/**
 * Auth speed on this machine: `npm run bench:auth`.
 * - raw RS256 verify and sign with node:crypto (2048-bit key), the baseline;
 * - libs/jwt local verification (signature, claims, revocation check) against that baseline
 *   (target: at least 80 % of raw verify);
 * - /validate, /refresh and /login over HTTP against the real service started as a child process
 *   (target for /validate: at least 5,000 requests/s with p99 under 10 ms);
 * - /validate beside node-oidc-provider's token introspection in its own process, both loaded at
 *   once at c=32 (target: at least as fast), with each server's CPU time per request;
 * - /validate with tracing on (spans exported over OTLP/HTTP to a sink in this process; every
 *   request traced, and 10 % of new traces sampled) beside the same service with tracing off, and
 *   a second untraced process as a control, all loaded at once at the same fixed rate
 *   (BENCH_TRACING_RATE req/s each, default 1,500), in BENCH_TRACING_TRIALS (default 3) trials of
 *   fresh processes, each loaded for BENCH_TRACING_WARM_SECONDS (default 30) before it is counted;
 *   the median trial counts (target: tracing costs under 5 % CPU);
 * - with BENCH_TRACING_INSTRUCTIONS=<cycles>, tracing's cost in one traced process whose span
 *   pipeline is switched between off, every request and 10 % sampled, counted in instructions
 *   under valgrind's callgrind (lib/instructions.ts), which the machine's speed does not move:
 *   BENCH_TRACING_INSTRUCTION_REQUESTS (default 3,000) requests a window, each after 1,000 that
 *   let the JIT settle. The SDK stays loaded in every state, so what its presence alone costs
 *   is left out. It takes several minutes, so it runs only when asked.
 * The service runs as the image runs it: bundled by esbuild with the production build's options
 * (tools/scripts/bundle-options.ts, into dist/bench/auth), started with plain node.
 * Rate limits are raised for the run through the service's own environment variables.
 */
import { RedisRevocationList, StaticKeyResolver, TokenVerifier } from '@platform/jwt';
import autocannon from 'autocannon';
import { build } from 'esbuild';
import { Redis } from 'ioredis';
import jwt from 'jsonwebtoken';
import { spawn } from 'node:child_process';
import { generateKeyPairSync, randomUUID, sign, verify } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { TracingState } from './lib/auth-tracing-toggle';
import { callgrindAvailable, startUnderCallgrind, type InstructionCounts } from './lib/instructions';
import { productionBundleOptions } from '../scripts/bundle-options';
import { fmt, forkReady, load, median, opsPerSecond, post, processCpuMicros } from './lib/load';

const ROOT = path.join(__dirname, '../..');
const PORT = Number(process.env.BENCH_AUTH_PORT ?? 3951);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** BENCH_ONLY=validate: only the two /validate comparisons (the peer, tracing on and off). */
const ONLY_VALIDATE = process.env.BENCH_ONLY === 'validate';
/** Trials of the tracing comparison, each with three fresh processes (off, every request, 10 % sampled). */
const TRACING_TRIALS = Number(process.env.BENCH_TRACING_TRIALS ?? 3);
/** The request rate each process of the tracing comparison is loaded at. */
const TRACING_RATE = Number(process.env.BENCH_TRACING_RATE ?? 1500);
/**
 * How long each process of the tracing comparison is loaded before anything is counted. At
 * 1,500 req/s the JIT still optimizes (and spends CPU) for some 40 s after start; a traced process
 * has more code to compile, and a running service has compiled it long ago.
 */
const TRACING_WARM_SECONDS = Number(process.env.BENCH_TRACING_WARM_SECONDS ?? 30);
/** Cycles of the instruction count (0: not run), and the requests counted in each window. */
const INSTRUCTION_CYCLES = Number(process.env.BENCH_TRACING_INSTRUCTIONS ?? 0);
const INSTRUCTION_REQUESTS = Number(process.env.BENCH_TRACING_INSTRUCTION_REQUESTS ?? 3000);
const ADMIN = { username: `bench-admin-${randomUUID().slice(0, 8)}`, password: `bench-${randomUUID()}` };

async function localVerification() {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const now = Math.floor(Date.now() / 1000);
  const token = jwt.sign(
    {
      sub: 'u',
      iss: 'https://auth.bench',
      aud: ['agent-platform'],
      iat: now,
      nbf: now,
      exp: now + 3600,
      jti: randomUUID(),
      scope: 'api',
      roles: ['user'],
      permissions: ['registry:read'],
      user: { id: 'u', email: null, name: null },
      client_id: 'bench',
    },
    privateKey,
    { algorithm: 'RS256', keyid: 'k1' },
  );
  const [h, p, s] = token.split('.');
  const data = Buffer.from(`${h}.${p}`);
  const signature = Buffer.from(s!, 'base64url');
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const revocations = new RedisRevocationList(redis);
  await revocations.start();
  const keys = new Map([['k1', publicKey]]);
  const verifier = new TokenVerifier({ keys: new StaticKeyResolver(() => keys), issuer: 'https://auth.bench', audience: 'agent-platform', revocations });
  // verify() is async (a key may need a fetch): measured as services call it, awaited in turn.
  const localOnce = async (seconds: number) => {
    let count = 0;
    const start = performance.now();
    while (performance.now() - start < seconds * 1000) {
      await verifier.verify(token);
      count++;
    }
    return count / ((performance.now() - start) / 1000);
  };
  // Alternate raw and local rounds and keep the best of each: other load on the machine then
  // weighs on both alike.
  let rawVerify = 0;
  let local = 0;
  for (let round = 0; round < 5; round++) {
    rawVerify = Math.max(
      rawVerify,
      opsPerSecond(1, () => verify('RSA-SHA256', data, publicKey, signature)),
    );
    local = Math.max(local, await localOnce(1));
  }
  const rawSign = opsPerSecond(2, () => sign('RSA-SHA256', data, privateKey));
  await revocations.stop();
  redis.disconnect();
  return { rawVerify, rawSign, local };
}

/** The service and the one-process tracing child, bundled as the image bundles the service. */
const BUNDLE = { service: path.join(ROOT, 'dist/bench/auth/main.js'), tracingToggle: path.join(ROOT, 'dist/bench/auth/auth-tracing-toggle.js') };

async function bundle(): Promise<void> {
  const options = productionBundleOptions(ROOT);
  await Promise.all([
    build({ ...options, entryPoints: [path.join(ROOT, 'apps/auth/src/main.ts')], outfile: BUNDLE.service }),
    build({ ...options, entryPoints: [path.join(__dirname, 'lib/auth-tracing-toggle.ts')], outfile: BUNDLE.tracingToggle }),
  ]);
}

/** The auth service's environment in this benchmark: tracing off unless asked, rate limits raised. */
function serviceEnv(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    LOG_LEVEL: 'warn',
    OTEL_SDK_DISABLED: 'true',
    AUTH_PUBLIC_URL: `http://127.0.0.1:${PORT}`,
    AUTH_ADMIN_USERNAME: ADMIN.username,
    AUTH_ADMIN_PASSWORD: ADMIN.password,
    AUTH_LOGIN_RATE_LIMIT: '100000000',
    AUTH_REFRESH_RATE_LIMIT: '100000000',
    AUTH_VALIDATE_RATE_LIMIT: '100000000',
    AUTH_LOCKOUT_THRESHOLD: '100000000',
  };
}

/**
 * Tracing's cost in instructions: the traced auth process under callgrind, its span pipeline set
 * by this process to each state in turn for INSTRUCTION_CYCLES cycles; each window counts
 * INSTRUCTION_REQUESTS requests, after 1,000 that let the JIT settle from the switch. Batches
 * leave when full only (4,096 spans): at callgrind's pace the 2 s timer would send one every few
 * dozen spans, where at 1,500 req/s it sends 3,000.
 */
async function tracingInInstructions(sinkUrl: string, options: (port: number) => autocannon.Options): Promise<void> {
  if (!callgrindAvailable()) {
    console.log('tracing in instructions: skipped, valgrind is not installed');
    return;
  }
  const traced = startUnderCallgrind(BUNDLE.tracingToggle, {
    cwd: ROOT,
    env: { ...serviceEnv(), OTEL_SDK_DISABLED: 'false', OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl, OTEL_BSP_SCHEDULE_DELAY: '3600000' },
  });
  try {
    const inbox: unknown[] = [];
    let waiting: ((message: unknown) => void) | undefined;
    traced.child.on('message', (message) => (waiting ? waiting(message) : inbox.push(message)));
    const next = () =>
      new Promise<unknown>((resolve) => {
        if (inbox.length) resolve(inbox.shift());
        else
          waiting = (message) => {
            waiting = undefined;
            resolve(message);
          };
      });
    const { port } = (await next()) as { port: number };
    const requests = async (amount: number) => {
      const result = await autocannon({ ...options(port), connections: 32, amount });
      if (result.non2xx + result.errors > 0) throw new Error('non-2xx answers in the instruction count');
    };
    await requests(20_000); // compiled before anything is counted, uninstrumented
    traced.instrument();
    const states: TracingState[] = ['off', 'every request', '10 % sampled'];
    const cycles: Array<Map<TracingState, InstructionCounts>> = [];
    for (let cycle = 0; cycle < INSTRUCTION_CYCLES; cycle++) {
      const counts = new Map<TracingState, InstructionCounts>();
      for (const state of states) {
        traced.child.send({ state });
        await next();
        await requests(1000);
        traced.zero();
        await requests(INSTRUCTION_REQUESTS);
        counts.set(state, traced.count());
      }
      cycles.push(counts);
    }
    const perRequest = (state: TracingState, thread: keyof InstructionCounts) =>
      median(cycles.map((counts) => counts.get(state)![thread] / INSTRUCTION_REQUESTS));
    const cost = (state: TracingState, thread: keyof InstructionCounts) =>
      median(cycles.map((counts) => (100 * (counts.get(state)![thread] - counts.get('off')![thread])) / counts.get('off')![thread]));
    console.log(
      `POST /validate c=32, one process under callgrind, ${fmt(INSTRUCTION_REQUESTS)} requests a window (${INSTRUCTION_CYCLES} cycles): off ${fmt(perRequest('off', 'mainThread'))} instructions/req on the main thread (${fmt(perRequest('off', 'allThreads'))} on all), ${states
        .slice(1)
        .map(
          (state) =>
            `${state} ${fmt(perRequest(state, 'mainThread'))} (tracing costs ${fmt(cost(state, 'mainThread'), 1)} %; all threads ${fmt(cost(state, 'allThreads'), 1)} %)`,
        )
        .join(', ')}, median of cycles (target < 5 %)`,
    );
  } finally {
    await traced.stop();
  }
}

/** The auth service, bundled, as a child process of its own (its pid is the service's). */
async function startService(port = PORT, env: Record<string, string> = {}): Promise<{ pid: number; stop: () => void }> {
  const child = spawn(process.execPath, [BUNDLE.service], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...serviceEnv(), PORT: String(port), ...env },
  });
  for (let i = 0; i < 120; i++) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const ready = await fetch(`http://127.0.0.1:${port}/health/ready`).then(
      (res) => res.ok,
      () => false,
    );
    if (ready) return { pid: child.pid!, stop: () => child.kill('SIGTERM') };
  }
  child.kill('SIGKILL');
  throw new Error('auth did not become ready');
}

/** One autocannon round against a server, with the CPU time that server spent on it. */
async function measured(pid: number, options: autocannon.Options): Promise<{ rps: number; requests: number; cpuMicros: number; non2xx: number }> {
  const before = processCpuMicros(pid);
  const result = await autocannon({ connections: 32, duration: SECONDS, ...options });
  return { rps: result.requests.average, requests: result.requests.total, cpuMicros: processCpuMicros(pid) - before, non2xx: result.non2xx + result.errors };
}

/** Best round's req/s, and CPU per request over all rounds (µs). */
function summary(rounds: Array<{ rps: number; requests: number; cpuMicros: number }>) {
  const requests = rounds.reduce((sum, r) => sum + r.requests, 0);
  return { rps: Math.max(...rounds.map((r) => r.rps)), cpuPerRequest: rounds.reduce((sum, r) => sum + r.cpuMicros, 0) / requests };
}

/** An OTLP/HTTP sink: answers every export at once and counts them. */
async function startSpanSink(): Promise<{ url: string; exports: () => number; close: () => void }> {
  let exports = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url === '/v1/traces') exports++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, exports: () => exports, close: () => server.close() };
}

/** node-oidc-provider's introspection endpoint in its own process (the package is ESM-only). */
async function startIntrospectionPeer(): Promise<{ port: number; token: string; authorization: string; pid: number; stop: () => void }> {
  const { child, ready } = await forkReady<{ port: number; token: string; authorization: string }>(
    'the introspection peer',
    path.join(__dirname, 'lib/oidc-introspection.mjs'),
    [],
    { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], env: { ...process.env, NODE_ENV: 'production' } },
  );
  return { ...ready, pid: child.pid!, stop: () => child.kill() };
}

async function main() {
  console.log(`auth benchmark: ${SECONDS} s per endpoint, node ${process.version}`);
  if (!ONLY_VALIDATE) {
    const crypto = await localVerification();
    console.log(`raw RS256 verify (node:crypto)        ${fmt(crypto.rawVerify)} /s`);
    console.log(`raw RS256 sign (node:crypto)          ${fmt(crypto.rawSign)} /s`);
    console.log(
      `libs/jwt local verification           ${fmt(crypto.local)} tokens/s = ${fmt((100 * crypto.local) / crypto.rawVerify, 1)} % of raw verify (target >= 80 %)`,
    );
  }

  await bundle();
  const service = await startService();
  const stop = service.stop;
  try {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
    const base = `http://127.0.0.1:${PORT}/api/v1/auth`;
    const login = () =>
      post(agent, new URL(`${base}/login`), { username: ADMIN.username, password: ADMIN.password, client_id: 'bench', grant_type: 'password' });
    const first = await login();
    if (first.status !== 200) throw new Error(`login failed: ${first.status}`);
    const validateAt = (port: number): autocannon.Options => ({
      url: `http://127.0.0.1:${port}/api/v1/auth/validate`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: first.body.access_token }),
    });

    // The peer: node-oidc-provider's token introspection, loaded at the same time as /validate
    // (c=32 each), so that other load on this shared machine weighs on both alike; the best round
    // of each counts for req/s, and each server's own CPU time per request over all rounds.
    const peer = await startIntrospectionPeer();
    const introspection: autocannon.Options = {
      url: `http://127.0.0.1:${peer.port}/token/introspection`,
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: peer.authorization },
      body: `token=${peer.token}`,
    };
    // Warm-up: both compile their hot paths before anything is counted.
    await Promise.all([validateAt(PORT), introspection].map((options) => autocannon({ ...options, connections: 32, duration: 3 })));
    const oursRounds = [];
    const theirsRounds = [];
    for (let round = 0; round < ROUNDS; round++) {
      const [ours, theirs] = await Promise.all([measured(service.pid, validateAt(PORT)), measured(peer.pid, introspection)]);
      if (ours.non2xx + theirs.non2xx > 0) throw new Error(`non-2xx answers: validate ${ours.non2xx}, introspection ${theirs.non2xx}`);
      oursRounds.push(ours);
      theirsRounds.push(theirs);
    }
    peer.stop();
    const ours = summary(oursRounds);
    const theirs = summary(theirsRounds);
    console.log(
      `POST /validate c=32 ${fmt(ours.rps)} req/s beside oidc-provider introspection ${fmt(theirs.rps)} req/s = ${fmt(ours.rps / theirs.rps, 2)}x (target >= 1x)`,
    );
    console.log(
      `  CPU per request: /validate ${fmt(ours.cpuPerRequest)} µs, introspection ${fmt(theirs.cpuPerRequest)} µs = ${fmt(theirs.cpuPerRequest / ours.cpuPerRequest, 2)}x as efficient`,
    );

    // Tracing: the service with tracing off, with the OpenTelemetry SDK on and every request traced
    // (the default), and with the sampler a busy deployment sets (parent-based: a caller's sampled
    // trace is always continued; 10 % of new traces), spans exported to a sink; and a second
    // untraced process, the control: the cost figures are only as good as its difference from the
    // first. All are loaded at once at the same fixed rate, so CPU time per request measures what a
    // request costs. (Loaded to saturation together, identical processes differed by 2-5 %: the
    // one the scheduler starves batches more requests per wake-up and spends less per request.)
    // CPU per request also differs between two processes of the same build, so each trial starts
    // fresh processes, and the median trial's cost counts.
    const sink = await startSpanSink();
    const tracedEnv = { OTEL_SDK_DISABLED: 'false', OTEL_EXPORTER_OTLP_ENDPOINT: sink.url };
    const variants = [
      { name: 'off', env: {} },
      { name: 'on, every request', env: tracedEnv },
      { name: 'on, parentbased_traceidratio 0.1', env: { ...tracedEnv, OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' } },
      { name: 'off (control)', env: {} },
    ];
    const trials: Array<Array<{ rps: number; cpuPerRequest: number }>> = [];
    try {
      for (let trial = 0; trial < TRACING_TRIALS; trial++) {
        const ports = variants.map((_, i) => PORT + variants.length * trial + i + 1);
        const services = await Promise.all(variants.map((variant, i) => startService(ports[i], variant.env)));
        try {
          // Warm-up: the new processes compile their hot paths before anything is counted.
          await Promise.all(
            ports.map((port) => autocannon({ ...validateAt(port), connections: 32, duration: TRACING_WARM_SECONDS, overallRate: TRACING_RATE })),
          );
          const rounds: Array<Array<Awaited<ReturnType<typeof measured>>>> = variants.map(() => []);
          for (let round = 0; round < ROUNDS; round++) {
            const results = await Promise.all(services.map((svc, i) => measured(svc.pid, { ...validateAt(ports[i]!), overallRate: TRACING_RATE })));
            if (results.some((result) => result.non2xx > 0)) throw new Error('non-2xx answers in the tracing comparison');
            results.forEach((result, i) => rounds[i]!.push(result));
          }
          trials.push(rounds.map(summary));
        } finally {
          for (const svc of services) svc.stop();
        }
      }
      const costOf = (trial: Array<{ cpuPerRequest: number }>, i: number) =>
        (100 * (trial[i]!.cpuPerRequest - trial[0]!.cpuPerRequest)) / trial[0]!.cpuPerRequest;
      for (const [t, trial] of trials.entries()) {
        console.log(
          `  tracing trial ${t + 1}: ${variants.map((variant, i) => `${variant.name} ${fmt(trial[i]!.cpuPerRequest)} µs${i ? ` (${costOf(trial, i) >= 0 ? '+' : ''}${fmt(costOf(trial, i), 1)} %)` : ''}`).join(', ')}`,
        );
      }
      console.log(
        `POST /validate c=32 at ${fmt(TRACING_RATE)} req/s each, tracing off ${fmt(median(trials.map((trial) => trial[0]!.cpuPerRequest)))} µs CPU/req`,
      );
      for (let i = 1; i < variants.length; i++) {
        const control = i === variants.length - 1;
        console.log(
          `POST /validate c=32 at ${fmt(TRACING_RATE)} req/s each, ${control ? 'a second untraced process' : `tracing ${variants[i]!.name}`}: ${fmt(median(trials.map((trial) => trial[i]!.cpuPerRequest)))} µs CPU/req, ${control ? 'differs by' : 'tracing costs'} ${fmt(median(trials.map((trial) => costOf(trial, i))), 1)} % CPU, median of ${trials.length} trials${control ? ' (the noise floor)' : ' (target < 5 %)'}`,
        );
      }
      if (INSTRUCTION_CYCLES > 0) await tracingInInstructions(sink.url, validateAt);
      await new Promise((resolve) => setTimeout(resolve, 1000)); // the last exports of the stopped processes
      console.log(`  ${sink.exports()} OTLP exports received by the sink`);
    } finally {
      sink.close();
    }
    const live = await measured(service.pid, { url: `http://127.0.0.1:${PORT}/health/live`, duration: Math.min(SECONDS, 5) });
    console.log(
      `GET /health/live c=32 ${fmt(live.rps)} req/s  ${fmt(live.cpuMicros / live.requests)} µs CPU/req  (the service's floor: Express and the shared middleware, no work)`,
    );
    if (ONLY_VALIDATE) return;

    // autocannon drives /validate: the load generator shares this machine's two cores with the
    // service, so it must cost as little as possible.
    for (const connections of [8, 32]) {
      const validate = await autocannon({
        url: `${base}/validate`,
        method: 'POST',
        connections,
        duration: SECONDS,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token: first.body.access_token }),
      });
      const errors = validate.errors + validate.non2xx;
      console.log(
        `POST /validate  c=${connections}${connections < 10 ? ' ' : ''}  ${fmt(validate.requests.average)} req/s  p50 ${fmt(validate.latency.p50, 2)} ms  p99 ${fmt(validate.latency.p99, 2)} ms  errors ${errors}  (target >= 5,000 req/s, p99 < 10 ms)`,
      );
    }

    const sessions = await Promise.all(Array.from({ length: 8 }, async () => (await login()).body.refresh_token as string));
    const refresh = await load(8, SECONDS, async (worker) => {
      const res = await post(agent, new URL(`${base}/refresh`), { refresh_token: sessions[worker], grant_type: 'refresh_token' });
      if (res.status === 200) sessions[worker] = res.body.refresh_token;
      return res.status;
    });
    console.log(
      `POST /refresh   c=8   ${fmt(refresh.perSecond)} req/s  p50 ${fmt(refresh.p50, 2)} ms  p99 ${fmt(refresh.p99, 2)} ms  errors ${refresh.errors}  (one RS256 sign + a Postgres transaction each)`,
    );

    const logins = await load(4, SECONDS, async () => (await login()).status);
    console.log(
      `POST /login     c=4   ${fmt(logins.perSecond, 1)} req/s  p50 ${fmt(logins.p50, 2)} ms  p99 ${fmt(logins.p99, 2)} ms  errors ${logins.errors}  (scrypt N=2^15: memory-hard by design)`,
    );
    agent.destroy();
  } finally {
    stop();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
