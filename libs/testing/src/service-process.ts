import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { testDatabaseUrl, testRedisUrl } from './environment';

const ROOT = path.resolve(__dirname, '../../..');

export interface ServiceProcess {
  name: string;
  port: number;
  url: string;
  child: ChildProcess;
  /** The service's last log lines (for a failing test's message). */
  logs: string[];
  /** SIGTERM (graceful shutdown), then SIGKILL after `graceMs`; resolves once it has exited. */
  stop(graceMs?: number): Promise<void>;
  /** SIGKILL at once: a crash. */
  kill(): Promise<void>;
}

export interface SpawnServiceOptions {
  /** Environment over the test defaults (PORT 0, test database and Redis, LOG_LEVEL info). */
  env?: Record<string, string | undefined>;
  /** Extra arguments, e.g. `['--role', 'worker']`. */
  args?: string[];
  /** Another entry point than `apps/<name>/src/main.ts` (a fixture service). */
  entry?: string;
  /** How long to wait for the service's "listening" line. */
  timeoutMs?: number;
}

/**
 * Runs `apps/<name>/src/main.ts` as its own process, as it runs in production (tsx's loader in the
 * service's process, so signals reach it directly), on a free port unless PORT is given. Resolves
 * once the service logs that it listens; rejects with its last log lines when it exits first.
 * Services never import each other, so tests that need another service run it this way.
 */
export async function spawnService(name: string, options: SpawnServiceOptions = {}): Promise<ServiceProcess> {
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    PORT: '0',
    DATABASE_URL: testDatabaseUrl,
    REDIS_URL: testRedisUrl,
    LOG_LEVEL: 'info',
    OTEL_SDK_DISABLED: 'true',
  };
  for (const [key, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  const child = spawn(process.execPath, ['--import', 'tsx', options.entry ?? path.join(ROOT, 'apps', name, 'src/main.ts'), ...(options.args ?? [])], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: string[] = [];
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => fail(`${name} did not start within ${options.timeoutMs ?? 60_000} ms`), options.timeoutMs ?? 60_000);
    const fail = (message: string) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${message}\n${logs.slice(-20).join('\n')}`));
    };
    const onLine = (line: string) => {
      logs.push(line);
      if (logs.length > 200) logs.shift();
      if (!line.includes('listening')) return;
      try {
        const entry = JSON.parse(line) as { msg?: string; port?: number };
        // The service's own HTTP port: `<name> listening` (a second listener, such as OTLP/gRPC, logs its own line).
        if (entry.msg === `${name} listening` && typeof entry.port === 'number') {
          clearTimeout(timer);
          resolve(entry.port);
        }
      } catch {
        // not a JSON log line
      }
    };
    readline.createInterface({ input: child.stdout! }).on('line', onLine);
    readline.createInterface({ input: child.stderr! }).on('line', onLine);
    child.once('exit', (code, signal) => fail(`${name} exited (${signal ?? code}) before it listened`));
  });
  const stop = async (graceMs = 10_000) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  };
  return {
    name,
    port,
    url: `http://127.0.0.1:${port}`,
    child,
    logs,
    stop,
    kill: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

export interface ServiceProcessResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a service's `main.ts` (a path from the repository root) as its own process until it exits,
 * with only the given environment (and PATH, HOME): for start-up failures, which end the process
 * (`spawnService` above waits for a service that starts).
 */
export function runServiceProcess(main: string, env: Record<string, string | undefined>, timeoutMs = 20_000): Promise<ServiceProcessResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [require.resolve('tsx/cli', { paths: [ROOT] }), main], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${main} did not exit within ${timeoutMs} ms: ${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
