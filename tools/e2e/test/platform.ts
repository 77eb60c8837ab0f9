import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';

const ROOT = path.resolve(__dirname, '../../..');

interface ReadyMessage {
  type: 'ready';
  urls: Record<string, string>;
  grpcPort: number;
  admin: { username: string; password: string };
  services: Array<{ name: string; url: string; ok: boolean; reason?: string; tail?: string[] }>;
  keyError?: string;
}

export interface Platform {
  /** Each service's base URL, by name. */
  urls: Record<string, string>;
  admin: { username: string; password: string };
  /** The last lines the services logged (prefixed with their names), for a failing test's message. */
  logs: string[];
  /** Lines of one service's log, as it printed them. */
  logsOf(name: string): string[];
  stop(): Promise<void>;
}

/**
 * The whole platform as `npm run up` boots it (tools/scripts/up.mjs, on free ports, without its
 * install and setup steps: the test target's dependencies generated the Prisma clients, and each
 * service migrates its schema on start): auth first, the service API keys issued through auth's
 * admin API, then every other service, each its own process.
 * Resolves once every service is ready; stopping it stops them all, and so does this process
 * going away (the launcher leaves when its IPC channel closes).
 */
export async function startPlatform(env: Record<string, string | undefined>, timeoutMs: number): Promise<Platform> {
  const child: ChildProcess = spawn(process.execPath, [path.join(ROOT, 'tools/scripts/up.mjs'), '--ports=free', '--skip-setup'], {
    cwd: ROOT,
    env: Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined)) as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  const logs: string[] = [];
  const onLine = (line: string) => {
    logs.push(line);
    if (logs.length > 20_000) logs.shift();
  };
  readline.createInterface({ input: child.stdout! }).on('line', onLine);
  readline.createInterface({ input: child.stderr! }).on('line', onLine);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    // The launcher stops each service gracefully and kills what is left after 15 s.
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    await exited;
    clearTimeout(timer);
  };

  let ready: ReadyMessage;
  try {
    ready = await new Promise<ReadyMessage>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the platform was not up within ${timeoutMs} ms`)), timeoutMs);
      child.on('message', (message: ReadyMessage) => {
        if (message?.type !== 'ready') return;
        clearTimeout(timer);
        resolve(message);
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`the platform launcher exited (${signal ?? code}) before the platform was up`));
      });
    });
    const failed = ready.services.filter((service) => !service.ok);
    if (failed.length)
      throw new Error(failed.map((service) => `${service.name} did not become ready: ${service.reason}\n${(service.tail ?? []).join('\n')}`).join('\n\n'));
    if (ready.keyError) throw new Error(ready.keyError);
  } catch (error) {
    await stop();
    throw new Error(`${(error as Error).message}\n--- last lines ---\n${logs.slice(-60).join('\n')}`);
  }
  return {
    urls: ready.urls,
    admin: ready.admin,
    logs,
    logsOf: (name) => logs.filter((line) => line.startsWith(`${name.padEnd(14)}│`)),
    stop,
  };
}
