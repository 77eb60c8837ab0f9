import { spawn } from 'node:child_process';
import path from 'node:path';

const BIN = path.resolve(__dirname, '../bin/platform.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the real binary (`node tools/cli/bin/platform.js …`) with the given env and stdin. */
export function runCli(args: string[], env: Record<string, string>, stdin = '', binary = BIN): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [binary, ...args], { env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...env }, stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(stdin);
  });
}
