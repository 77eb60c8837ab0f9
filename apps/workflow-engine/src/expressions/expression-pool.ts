import type { Logger } from '@platform/telemetry';
import { spawn, type ChildProcess } from 'node:child_process';

/** Why an expression was stopped: past its time, past its memory, or its process ended otherwise. */
export type ExpressionLimit = 'timeout' | 'memory' | 'result' | 'crashed' | 'unavailable';

/** An expression that spent its budget (or could not be run at all); its evaluation was stopped. */
export class ExpressionBudgetError extends Error {
  constructor(
    readonly limit: ExpressionLimit,
    message: string,
  ) {
    super(message);
    this.name = 'ExpressionBudgetError';
  }
}

/** An expression that failed on its own terms (syntax, types, an undefined function). */
export class ExpressionEvaluationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExpressionEvaluationError';
  }
}

export interface ExpressionEvaluator {
  evaluate(source: string, input: unknown): Promise<unknown>;
}

export interface ExpressionPoolOptions {
  /** Evaluator processes: each runs one evaluation at a time. */
  size: number;
  /** Longest one evaluation may run before its process is killed and replaced. */
  timeoutMs: number;
  /** Heap of each evaluator process (`--max-old-space-size`). */
  memoryMb: number;
  /** Largest result, as JSON, that comes back (a bigger one would cost the engine's event loop). */
  maxResultBytes: number;
  /** Longest an evaluation waits for a free process before it fails, retryable. */
  queueTimeoutMs: number;
}

/**
 * The evaluator process: JSONata with its parsed expressions cached, one message in, one out. Plain
 * JavaScript run with `node -e`, so it needs no file of its own in a bundle or under a test runner;
 * `jsonata` is required by the absolute path the engine resolved.
 */
const EVALUATOR = (jsonataPath: string) => `
// A process stuck in an expression never sees its engine go (no 'disconnect' on a blocked loop):
// a thread of its own ends it once the engine is gone (reparented), so none outlives a SIGKILL.
const { Worker } = require('node:worker_threads');
new Worker(
  'const { workerData } = require("node:worker_threads"); setInterval(() => process.ppid !== workerData && process.kill(process.pid, "SIGKILL"), 500);',
  { eval: true, workerData: process.ppid },
).unref();
const jsonata = require(${JSON.stringify(jsonataPath)});
const parsed = new Map();
process.on('message', async ({ id, source, input, maxResultBytes }) => {
  let answer;
  try {
    let expression = parsed.get(source);
    if (!expression) {
      expression = jsonata(source);
      if (parsed.size >= 500) parsed.delete(parsed.keys().next().value);
      parsed.set(source, expression);
    }
    const value = await expression.evaluate(input);
    const json = value === undefined ? undefined : JSON.stringify(value);
    answer = json !== undefined && json.length > maxResultBytes ? { id, tooLarge: json.length } : { id, json };
  } catch (error) {
    answer = { id, error: String((error && error.message) || error) };
  }
  process.send(answer);
});
process.on('disconnect', () => process.exit(0));
process.send({ ready: true });
`;

interface Pending {
  source: string;
  input: unknown;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  queued: NodeJS.Timeout;
}

interface Slot {
  child: ChildProcess;
  /** Takes evaluations (started, and not being killed). */
  ready: boolean;
  /** Did start once: a replacement for it starts at once (one that never started waits a second). */
  started: boolean;
  job?: { id: number; pending: Pending; timer: NodeJS.Timeout };
  stderr: string;
}

/**
 * Runs JSONata expressions in a small pool of child processes, off the engine's event loop and its
 * heap, each with a time and memory budget: an expression past its time is killed with its
 * process, one past its memory ends its process, and either way a fresh process takes its place
 * while the engine goes on (and answers /health/live) meanwhile.
 *
 * Processes rather than worker_threads: a worker's `resourceLimits` do not hold against one large
 * allocation (`$count([1..9999999])`, a 300 MB string): V8 then aborts the whole process, engine
 * included, where a child process only ends itself.
 */
export class ExpressionPool implements ExpressionEvaluator {
  private readonly slots = new Set<Slot>();
  private readonly queue: Pending[] = [];
  private nextId = 0;
  private closed = false;
  private readonly jsonataPath = require.resolve('jsonata');

  constructor(
    private readonly options: ExpressionPoolOptions,
    private readonly logger: Logger,
  ) {}

  /** Starts the processes now rather than on the first expression. */
  start(): this {
    while (this.slots.size < this.options.size) this.spawn();
    return this;
  }

  evaluate(source: string, input: unknown): Promise<unknown> {
    if (this.closed) return Promise.reject(new ExpressionBudgetError('unavailable', 'The expression evaluator is shutting down'));
    this.start();
    return new Promise((resolve, reject) => {
      const pending: Pending = {
        source,
        input,
        resolve,
        reject,
        queued: setTimeout(() => {
          const index = this.queue.indexOf(pending);
          if (index < 0) return;
          this.queue.splice(index, 1);
          reject(new ExpressionBudgetError('unavailable', `No expression evaluator was free within ${this.options.queueTimeoutMs} ms`));
        }, this.options.queueTimeoutMs),
      };
      this.queue.push(pending);
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const pending of this.queue.splice(0)) {
      clearTimeout(pending.queued);
      pending.reject(new ExpressionBudgetError('unavailable', 'The expression evaluator is shutting down'));
    }
    const exits = [...this.slots].map((slot) => this.end(slot, new ExpressionBudgetError('unavailable', 'The expression evaluator is shutting down')));
    await Promise.all(exits);
  }

  private spawn(): void {
    const child = spawn(process.execPath, [`--max-old-space-size=${this.options.memoryMb}`, '-e', EVALUATOR(this.jsonataPath)], {
      // Nothing of the engine's environment (secrets, NODE_OPTIONS) reaches the evaluator.
      env: {},
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    const slot: Slot = { child, ready: false, started: false, stderr: '' };
    this.slots.add(slot);
    child.stderr?.on('data', (chunk: Buffer) => (slot.stderr = (slot.stderr + chunk.toString()).slice(-2000)));
    child.on('message', (message: { ready?: boolean; id?: number; json?: string; tooLarge?: number; error?: string }) => {
      if (message.ready) {
        slot.ready = slot.started = true;
        return this.dispatch();
      }
      const job = slot.job;
      if (!job || job.id !== message.id) return;
      clearTimeout(job.timer);
      slot.job = undefined;
      if (message.error !== undefined) job.pending.reject(new ExpressionEvaluationError(message.error));
      else if (message.tooLarge !== undefined)
        job.pending.reject(
          new ExpressionBudgetError(
            'result',
            `The expression's result is ${message.tooLarge} bytes of JSON, more than the ${this.options.maxResultBytes} allowed`,
          ),
        );
      else job.pending.resolve(message.json === undefined ? undefined : JSON.parse(message.json));
      this.dispatch();
    });
    child.on('error', (error) => this.logger.warn({ err: error }, 'expression evaluator process failed'));
    child.on('exit', (code, signal) => {
      slot.ready = false;
      this.slots.delete(slot);
      const job = slot.job;
      slot.job = undefined;
      if (job) {
        clearTimeout(job.timer);
        // Out of heap, V8 aborts the process (SIGABRT, or exit code 134 through a shell).
        const outOfMemory = signal === 'SIGABRT' || code === 134 || /heap out of memory/i.test(slot.stderr);
        job.pending.reject(
          outOfMemory
            ? new ExpressionBudgetError('memory', `The expression used more than its ${this.options.memoryMb} MB of memory and was stopped`)
            : new ExpressionBudgetError('crashed', `The expression's evaluator ended (${signal ?? `exit ${code}`}) while evaluating it`),
        );
        this.logger.warn({ code, signal, outOfMemory, stderr: slot.stderr.slice(-300) }, 'expression evaluator ended mid-evaluation; replaced');
      } else if (!slot.started && !this.closed) {
        this.logger.error({ code, signal, stderr: slot.stderr.slice(-500) }, 'expression evaluator did not start');
      }
      if (this.closed) return;
      // A process that could not even start is retried after a pause, not in a tight loop.
      if (slot.started) this.spawn();
      else setTimeout(() => !this.closed && this.slots.size < this.options.size && (this.spawn(), this.dispatch()), 1000).unref();
      this.dispatch();
    });
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (this.queue.length === 0) return;
      if (!slot.ready || slot.job || !slot.child.connected) continue;
      const pending = this.queue.shift() as Pending;
      clearTimeout(pending.queued);
      const id = ++this.nextId;
      const timer = setTimeout(() => {
        if (slot.job?.id !== id) return;
        slot.job = undefined;
        slot.ready = false;
        pending.reject(new ExpressionBudgetError('timeout', `The expression ran longer than its ${this.options.timeoutMs} ms and was stopped`));
        // Its process may be in an endless loop: it goes, a fresh one replaces it (on exit).
        slot.child.kill('SIGKILL');
      }, this.options.timeoutMs);
      slot.job = { id, pending, timer };
      slot.child.send({ id, source: pending.source, input: pending.input ?? null, maxResultBytes: this.options.maxResultBytes }, (error) => {
        if (!error || slot.job?.id !== id) return;
        clearTimeout(timer);
        slot.job = undefined;
        pending.reject(new ExpressionBudgetError('crashed', `The expression could not be sent to its evaluator: ${error.message}`));
      });
    }
  }

  private end(slot: Slot, error: Error): Promise<void> {
    if (slot.job) {
      clearTimeout(slot.job.timer);
      slot.job.pending.reject(error);
      slot.job = undefined;
    }
    if (slot.child.exitCode !== null || slot.child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      slot.child.once('exit', () => resolve());
      slot.child.kill('SIGKILL');
    });
  }
}
