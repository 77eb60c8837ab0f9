/**
 * Instructions a Node process executes, counted by valgrind's callgrind: unlike CPU time, the
 * count does not move with the machine's speed or with what else runs on it, so a difference of a
 * few percent between two states of one process can be measured on a noisy machine. Under
 * callgrind the process runs some 50 times slower; it starts uninstrumented (faster still), and is
 * instrumented once warm.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface InstructionCounts {
  /** The main thread's: the JavaScript, the event loop and what of the GC runs there. */
  mainThread: number;
  /** Every thread's: the GC's helpers and the JIT's compiler threads too. */
  allThreads: number;
}

export interface CallgrindChild {
  child: ChildProcess;
  /** Starts counting (the process ran uninstrumented until now). */
  instrument(): void;
  /** Drops what was counted so far. */
  zero(): void;
  /** What was counted since the last zero or count, per thread kind. */
  count(): InstructionCounts;
  /** Ends the process and removes its counts (once it has written its last). */
  stop(): Promise<void>;
}

/** Whether callgrind can be run here. */
export function callgrindAvailable(): boolean {
  try {
    execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** `node <script>` under callgrind, with an IPC channel as fork() gives. */
export function startUnderCallgrind(script: string, options: { cwd: string; env: NodeJS.ProcessEnv }): CallgrindChild {
  const dir = mkdtempSync(path.join(tmpdir(), 'callgrind-'));
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      // V8 writes and patches machine code as it runs.
      '--smc-check=all-non-file',
      '--instr-atstart=no',
      '--separate-threads=yes',
      `--callgrind-out-file=${dir}/out.%p`,
      process.execPath,
      script,
    ],
    { cwd: options.cwd, env: options.env, stdio: ['ignore', 'ignore', 'ignore', 'ipc'] },
  );
  let dumps = 0;
  const control = (...args: string[]) => execFileSync('callgrind_control', [...args, String(child.pid)], { stdio: 'ignore' });
  return {
    child,
    instrument: () => control('-i', 'on'),
    zero: () => control('-z'),
    count() {
      control('-d');
      dumps++;
      // One file per thread: out.<pid>.<dump>-<thread>, the main thread being 01.
      const counts = { mainThread: 0, allThreads: 0 };
      for (const name of readdirSync(dir).filter((file) => file.includes(`.${dumps}-`))) {
        const total = Number(/^(?:totals|summary): (\d+)/m.exec(readFileSync(path.join(dir, name), 'utf8'))?.[1] ?? 0);
        counts.allThreads += total;
        if (name.endsWith('-01')) counts.mainThread = total;
      }
      return counts;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill();
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
