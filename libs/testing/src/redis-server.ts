import { spawn } from 'node:child_process';
import net from 'node:net';
import { freePort } from './free-port';

export interface PrivateRedis {
  /** `redis://127.0.0.1:<port>`: database 0 of a server no other test shares. */
  url: string;
  stop(): Promise<void>;
}

/**
 * A Redis server of the test's own, on a free port, keeping nothing on disk. A whole platform booted
 * by a test (browser tests, the CLI's) runs BullMQ queues whose names every other boot shares: on the
 * machine's Redis they would take each other's jobs, and every logical database there is some
 * suite's already.
 */
export async function startPrivateRedis(binary = process.env.REDIS_SERVER_BIN ?? 'redis-server'): Promise<PrivateRedis> {
  const port = await freePort();
  const child = spawn(binary, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'], {
    stdio: 'ignore',
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let startError: Error | undefined;
  child.once('error', (error) => (startError = new Error(`could not start ${binary}: ${error.message}`)));
  const url = `redis://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    await exited;
  };
  try {
    await waitForPing(url, 10_000, () => startError);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, stop };
}

async function waitForPing(url: string, timeoutMs: number, startError: () => Error | undefined): Promise<void> {
  const port = Number(new URL(url).port);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const error = startError();
    if (error) throw error;
    if (await answersPing(port)) return;
    if (Date.now() > deadline) throw new Error(`Redis on ${url} did not answer within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** One inline PING over a plain socket: a client library would keep reconnect timers behind. */
function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.setTimeout(1000);
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
    socket.once('error', () => done(false));
    socket.once('timeout', () => done(false));
  });
}
