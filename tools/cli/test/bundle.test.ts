import { copyFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleCli, BUNDLE } from '../bundle';
import { runCli } from './cli';

/** The CLI installed on its own: one file, run from a directory with no node_modules anywhere above it. */
describe('the bundled CLI (nx run cli:bundle)', () => {
  let alone: string;
  beforeAll(async () => {
    await bundleCli();
    alone = mkdtempSync(path.join(os.tmpdir(), 'platform-bundle-'));
    copyFileSync(BUNDLE, path.join(alone, 'platform.js'));
  }, 120_000);
  afterAll(() => rmSync(alone, { recursive: true, force: true }));

  it('is one executable file that answers --help without the repository', async () => {
    expect(statSync(BUNDLE).mode & 0o111).not.toBe(0);
    const result = await runCli(['--help'], { HOME: alone }, '', path.join(alone, 'platform.js'));
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain('Usage: platform [options] [command]');
    for (const command of ['login', 'agents', 'workflows', 'runs', 'traces', 'mcp', 'models', 'completion']) expect(result.stdout).toContain(`  ${command}`);
    const nested = await runCli(['workflows', 'run', '--help'], { HOME: alone }, '', path.join(alone, 'platform.js'));
    expect(nested).toMatchObject({ code: 0, stdout: expect.stringContaining('--follow') });
  });

  it('runs a command to its exit code (not signed in: 3)', async () => {
    const result = await runCli(['whoami'], { HOME: alone, XDG_CONFIG_HOME: path.join(alone, 'config') }, '', path.join(alone, 'platform.js'));
    expect(result).toMatchObject({ code: 3, stderr: expect.stringContaining('platform login') });
  });
});
