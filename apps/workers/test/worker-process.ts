import { testDatabaseUrl, testRedisUrl } from '@platform/testing';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const ROOT = path.join(__dirname, '../../..');

/** A worker process of its own: `node --import tsx apps/workers/src/main.ts --role worker`. */
export class WorkerProcess {
  child!: ChildProcess;
  output = '';

  constructor(private readonly env: Record<string, string>) {}

  start(): this {
    this.child = spawn(process.execPath, ['--import', 'tsx', 'apps/workers/src/main.ts', '--role', 'worker'], {
      cwd: ROOT,
      env: {
        ...process.env,
        PORT: '0',
        LOG_LEVEL: 'warn',
        OTEL_SDK_DISABLED: 'true',
        DATABASE_URL: testDatabaseUrl,
        REDIS_URL: testRedisUrl,
        MIGRATE_ON_START: 'false',
        ...this.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout!.on('data', (chunk) => (this.output += chunk));
    this.child.stderr!.on('data', (chunk) => (this.output += chunk));
    return this;
  }

  get pid(): number {
    return this.child.pid!;
  }

  kill(signal: NodeJS.Signals): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      this.child.once('exit', () => resolve());
      this.child.kill(signal);
    });
  }
}
