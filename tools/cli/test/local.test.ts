import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli } from './cli';

/** What the CLI decides on its own, before any request: no platform runs for these. */
describe('local checks of the platform CLI', () => {
  let home: string;
  let env: Record<string, string>;
  beforeAll(() => {
    home = mkdtempSync(path.join(os.tmpdir(), 'platform-local-'));
    env = { HOME: home, XDG_CONFIG_HOME: path.join(home, 'config'), PLATFORM_URL: 'http://127.0.0.1:9' };
  });
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it('refuses a file larger than any request may be, with exit 2', async () => {
    const big = path.join(home, 'big.json');
    writeFileSync(big, `{"input":"${'x'.repeat(9 * 1024 * 1024)}"}`);
    const result = await runCli(['agents', 'publish', big], env);
    expect(result).toMatchObject({ code: 2, stderr: expect.stringContaining('larger than 8 MiB') });
  });

  it('validates a manifest before asking for credentials: its errors at their paths', async () => {
    const manifest = path.join(home, 'agent.json');
    writeFileSync(manifest, JSON.stringify({ apiVersion: 'std/v0.4.7', kind: 'Agent', metadata: { name: 'UPPER', version: '1' } }));
    const result = await runCli(['agents', 'publish', manifest], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/\$\.metadata\.name: .+\(manifest\.metadata\.name\.\w+\)/);
    // A valid manifest gets as far as the credentials: exit 3 without a login.
    writeFileSync(
      manifest,
      JSON.stringify({
        apiVersion: 'std/v0.4.7',
        kind: 'Agent',
        metadata: { name: 'fine', namespace: 'local', version: '1.0.0', description: 'ok' },
        security: { tier: 'tier_1_read', capabilities: { required: [], optional: [] } },
      }),
    );
    const valid = await runCli(['agents', 'publish', manifest], env);
    expect(valid).toMatchObject({ code: 3, stderr: expect.stringContaining('platform login') });
  });
});
