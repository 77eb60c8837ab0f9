import { fork, type ChildProcess, type ForkOptions } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';

export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  perSecond: number;
  p50: number;
  p99: number;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export function median(values: number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
}

/** A keep-alive JSON POST; resolves with the status and parsed body. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- benchmark responses are read loosely
export function post(agent: http.Agent, url: URL, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: Record<string, any> }> {
  const payload = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': payload.length, ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/**
 * Runs `concurrency` loops for `seconds`, each calling `request(worker)` back to back, and reports
 * throughput and latency percentiles (milliseconds). A request that throws or answers non-2xx
 * counts as an error.
 */
export async function load(concurrency: number, seconds: number, request: (worker: number) => Promise<number>): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        try {
          const status = await request(worker);
          if (status < 200 || status >= 300) errors++;
        } catch {
          errors++;
        }
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    errors,
    seconds: elapsed,
    perSecond: latencies.length / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  };
}

/** Calls `fn` in a tight loop for `seconds` and returns calls per second. */
export function opsPerSecond(seconds: number, fn: () => void): number {
  const deadline = performance.now() + seconds * 1000;
  const start = performance.now();
  let count = 0;
  while (performance.now() < deadline) {
    for (let i = 0; i < 100; i++) fn();
    count += 100;
  }
  return count / ((performance.now() - start) / 1000);
}

export const fmt = (value: number, digits = 0) => value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** A module forked as a child process, once it has sent its first message (what it is ready with); `name` names it if it exits first. */
export async function forkReady<T>(name: string, modulePath: string, args: string[], options: ForkOptions): Promise<{ child: ChildProcess; ready: T }> {
  const child = fork(modulePath, args, options);
  const ready = await new Promise<T>((resolve, reject) => {
    child.once('message', (message) => resolve(message as T));
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code}`)));
  });
  return { child, ready };
}

/**
 * CPU time a process has used so far, in microseconds (user + system, from /proc; Linux only).
 * Read before and after a load round: the difference over the requests served is the CPU per
 * request, which other load on a shared machine hardly moves (unlike requests per second).
 */
export function processCpuMicros(pid: number): number {
  return cpuMicrosOf(readFileSync(`/proc/${pid}/stat`, 'utf8'));
}

/** The CPU time in a /proc/<pid>/stat line: after the command name (which may hold spaces), utime and stime are the 12th and 13th fields. */
function cpuMicrosOf(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / CLOCK_TICKS;
}

/**
 * CPU time (µs) of every process of this machine per command name in `commands` (`postgres`,
 * `redis-server`), keyed by pid: take two readings and `cpuSpentBetween` them. A process that exits
 * between the readings is left out; one that starts between them counts from its start.
 */
export function commandCpuMicros(commands: readonly string[]): Map<number, { command: string; micros: number }> {
  const readings = new Map<number, { command: string; micros: number }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const command = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      if (commands.includes(command)) readings.set(Number(entry), { command, micros: cpuMicrosOf(stat) });
    } catch {
      // The process ended while the list was read.
    }
  }
  return readings;
}

/** Per command, the CPU time (µs) its processes spent between two `commandCpuMicros` readings. */
export function cpuSpentBetween(before: ReturnType<typeof commandCpuMicros>, after: ReturnType<typeof commandCpuMicros>): Map<string, number> {
  const spent = new Map<string, number>();
  for (const [pid, { command, micros }] of after) spent.set(command, (spent.get(command) ?? 0) + micros - (before.get(pid)?.micros ?? 0));
  return spent;
}

const CLOCK_TICKS = 100; // sysconf(_SC_CLK_TCK) on Linux
