// Starting services as child processes for `up` and `service`: each runs its TypeScript entry
// through tsx, its log lines come back prefixed (and, for pino JSON, made readable), and a stop
// sends one SIGTERM so the service's own graceful shutdown runs, then SIGKILL after a grace period.
import { spawn } from 'node:child_process';
import readline from 'node:readline';
import { ROOT, bold, cyan, dim, red, yellow } from './workspace.mjs';

const LEVELS = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO ', 40: 'WARN ', 50: 'ERROR', 60: 'FATAL' };
const PALETTE = ['36', '35', '33', '32', '34', '96', '95', '93', '92', '94'];
const OMIT = new Set([
  'level',
  'time',
  'pid',
  'hostname',
  'msg',
  'service',
  'version',
  'req',
  'res',
  'responseTime',
  'reqId',
  'requestId',
  'traceId',
  'spanId',
  'traceFlags',
]);
const tty = process.stdout.isTTY && !process.env.NO_COLOR;

/** A pino JSON line as `12:00:01 INFO  message key=value`; anything else unchanged. */
export function formatLine(line) {
  if (process.env.LOG_FORMAT === 'json' || !line.startsWith('{')) return line;
  let entry;
  try {
    entry = JSON.parse(line);
  } catch {
    return line;
  }
  if (typeof entry !== 'object' || entry === null || !('level' in entry)) return line;
  const time = new Date(entry.time ?? Date.now()).toISOString().slice(11, 19);
  const level = LEVELS[entry.level] ?? String(entry.level).toUpperCase().padEnd(5);
  const paintLevel = entry.level >= 50 ? red : entry.level >= 40 ? yellow : (text) => text;
  let message = entry.msg ?? '';
  if (entry.req && entry.res)
    message = `${entry.req.method} ${entry.req.url} → ${entry.res.statusCode} ${Math.round(entry.responseTime ?? 0)} ms${message && !/^request (completed|errored)$/.test(message) ? ` ${message}` : ''}`;
  const rest = Object.entries(entry)
    .filter(([key]) => !OMIT.has(key))
    .map(([key, value]) => {
      if (key === 'err' && value && typeof value === 'object') return `\n${value.stack ?? value.message ?? JSON.stringify(value)}`;
      return `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`;
    });
  return `${dim(time)} ${paintLevel(level)} ${message}${rest.length ? ` ${dim(rest.join(' '))}` : ''}`;
}

/**
 * Starts `apps/<name>/src/main.ts` with `node --import tsx`: tsx's loader in the service's own
 * process, so signals reach the service directly (no wrapper process to relay them). The child gets
 * its own process group: a Ctrl-C in the terminal reaches only the parent, which then stops each
 * service exactly once.
 */
export function startService(app, env, { index = 0, prefix = true } = {}) {
  const child = spawn(process.execPath, ['--enable-source-maps', '--import', 'tsx', app.main], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const code = PALETTE[index % PALETTE.length];
  const label = prefix ? `${tty ? `\x1b[${code}m` : ''}${app.name.padEnd(14)}${tty ? '\x1b[0m' : ''}│ ` : '';
  const tail = [];
  const onLine = (stream) => (line) => {
    tail.push(line);
    if (tail.length > 40) tail.shift();
    stream.write(`${label}${formatLine(line)}\n`);
  };
  readline.createInterface({ input: child.stdout }).on('line', onLine(process.stdout));
  readline.createInterface({ input: child.stderr }).on('line', onLine(process.stderr));

  const service = { app, child, tail, exit: null };
  service.exited = new Promise((resolve) => {
    child.on('close', (exitCode, signal) => {
      service.exit = { code: exitCode, signal };
      resolve(service.exit);
    });
    child.on('error', (error) => {
      service.exit = { code: 1, signal: null, error };
      resolve(service.exit);
    });
  });
  return service;
}

export function describeExit(exit) {
  if (!exit) return 'running';
  if (exit.error) return `could not start (${exit.error.message})`;
  return exit.signal ? `killed by ${exit.signal}` : `exited with code ${exit.code}`;
}

/** SIGTERM to every running service, SIGKILL to what is left after `graceMs`. */
export async function stopAll(services, graceMs = 15_000) {
  const running = services.filter((service) => !service.exit);
  for (const service of running) {
    try {
      process.kill(service.child.pid, 'SIGTERM');
    } catch {
      /* already gone */
    }
  }
  const timer = setTimeout(() => {
    for (const service of running) {
      if (service.exit) continue;
      console.error(`${yellow('!')} ${service.app.name} did not stop within ${graceMs / 1000} s: killing it`);
      try {
        process.kill(-service.child.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
  }, graceMs);
  await Promise.all(running.map((service) => service.exited));
  clearTimeout(timer);
}

/**
 * Stops the services on Ctrl-C, SIGTERM or SIGHUP (with `stop`, by default stopAll); a second
 * Ctrl-C kills them at once. `services` may still fill after the call.
 */
export function stopOnSignals(services, onStopped, stop = () => stopAll(services)) {
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => {
      if (stopping) {
        for (const service of services)
          if (!service.exit)
            try {
              process.kill(-service.child.pid, 'SIGKILL');
            } catch {
              /* gone */
            }
        process.exit(130);
      }
      stopping = true;
      console.log(
        `\n${cyan('›')} Stopping ${
          services
            .filter((s) => !s.exit)
            .map((s) => bold(s.app.name))
            .join(', ') || 'nothing'
        } …`,
      );
      stop().then(() => onStopped(signal));
    });
  }
  // The parent going away for any other reason must not leave services behind.
  process.on('exit', () => {
    for (const service of services)
      if (!service.exit)
        try {
          process.kill(-service.child.pid, 'SIGKILL');
        } catch {
          /* gone */
        }
  });
}
