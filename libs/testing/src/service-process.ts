import { spawn } from 'node:child_process';
import path from 'node:path';

export interface ServiceProcessResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a service's `main.ts` as its own process (through tsx, from the repository root) until it
 * exits, as an operator would start it: for start-up failures, which end the process.
 */
export function runServiceProcess(main: string, env: Record<string, string | undefined>, timeoutMs = 20_000): Promise<ServiceProcessResult> {
  const root = path.join(__dirname, '../../..');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [require.resolve('tsx/cli', { paths: [root] }), main], {
      cwd: root,
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
