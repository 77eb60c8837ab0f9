// The agent-manifest command, spawned as a user runs it: through the workspace bin and tsx.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const REPO = join(__dirname, '..', '..', '..', '..');
const BIN = join(REPO, 'tools', 'agent-manifest', 'bin', 'agent-manifest.js');
const CORPUS = join(__dirname, '..', '..', 'corpus');

function run(args: string[], input?: string) {
  const result = spawnSync(process.execPath, [BIN, ...args], { cwd: REPO, encoding: 'utf8', input, env: { ...process.env, NO_COLOR: '1' } });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('agent-manifest CLI', () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-manifest-'));
  const good = join(dir, 'good.yaml');
  const bad = join(dir, 'bad.json');
  writeFileSync(good, 'apiVersion: std/v0.4.7\nkind: Agent\nmetadata:\n  name: good-agent\n  status: deprecated\n');
  writeFileSync(bad, JSON.stringify({ apiVersion: 'std/v0.4.7', kind: 'Agent', metadata: { name: 'Bad_Agent' } }));

  it('reports a valid file and exits 0', () => {
    const { status, stdout } = run(['validate', good]);
    expect(status).toBe(0);
    expect(stdout).toContain(`✓ ${good}`);
    expect(stdout).toContain('warning  $.metadata.deprecated_message');
    expect(stdout).toContain('1 file: 1 valid, 0 invalid; 0 errors, 1 warning');
  });

  it('exits 1 when any file is invalid, naming path, problem and code', () => {
    const { status, stdout } = run(['validate', good, bad]);
    expect(status).toBe(1);
    expect(stdout).toContain(`✗ ${bad}`);
    expect(stdout).toMatch(/error {4}\$\.metadata\.name {2}metadata\.name must be lowercase letters.*found "Bad_Agent" \[manifest\.metadata\.name\.pattern\]/);
  });

  it('reports a YAML alias bomb as an invalid file instead of crashing', () => {
    const levels = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'];
    const bomb = join(dir, 'bomb.yaml');
    writeFileSync(
      bomb,
      levels
        .map((name, i) =>
          i === 0
            ? `${name}: &${name} ["lol","lol","lol"]`
            : `${name}: &${name} [${Array(9)
                .fill(`*${levels[i - 1]}`)
                .join(',')}]`,
        )
        .join('\n'),
    );
    const { status, stdout, stderr } = run(['validate', bomb]);
    expect(status).toBe(1);
    expect(stdout).toContain(`✗ ${bomb}`);
    expect(stdout).toContain('aliases expand too far');
    expect(stderr).toBe('');
  });

  it('fails on warnings with --strict', () => {
    expect(run(['validate', '--strict', good]).status).toBe(1);
  });

  it('accepts a manifest whose checksum does not verify with a warning, and rejects it as an error under --strict', () => {
    const file = join(CORPUS, 'unverified', 'metadata-identity-checksum-mismatch.yaml');
    const loose = run(['validate', file]);
    expect(loose.status).toBe(0);
    expect(loose.stdout).toMatch(/warning {2}\$\.metadata\.identity\.checksum .*RFC 8785 canonical JSON.*\[manifest\.metadata\.identity\.checksum\.mismatch\]/);
    const strict = run(['validate', '--strict', '--json', file]);
    expect(strict.status).toBe(1);
    expect(JSON.parse(strict.stdout).files[0]).toMatchObject({
      valid: false,
      errors: [expect.objectContaining({ code: 'manifest.metadata.identity.checksum.mismatch' })],
    });
  });

  it('prints a JSON report with --json', () => {
    const { status, stdout } = run(['validate', '--json', good, bad]);
    expect(status).toBe(1);
    const report = JSON.parse(stdout);
    expect(report.valid).toBe(false);
    expect(report.files).toEqual([
      expect.objectContaining({ file: good, valid: true, format: 'yaml', schemaVersion: '0.4.7', errors: [] }),
      expect.objectContaining({
        file: bad,
        valid: false,
        errors: [expect.objectContaining({ code: 'manifest.metadata.name.pattern', path: '$.metadata.name' })],
      }),
    ]);
  });

  it('validates a directory and standard input', () => {
    expect(run(['validate', '-q', join(CORPUS, 'valid')]).status).toBe(0);
    const invalid = run(['validate', '--json', join(CORPUS, 'invalid')]);
    expect(invalid.status).toBe(1);
    expect(JSON.parse(invalid.stdout).files.every((f: { valid: boolean }) => !f.valid)).toBe(true);
    expect(run(['validate', '-'], '{"apiVersion":"std/v0.4.7","kind":"Flow","metadata":{"name":"s"}}').status).toBe(0);
  });

  it('prints the JSON Schema with --schema', () => {
    const { status, stdout } = run(['--schema']);
    expect(status).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ type: 'object', required: ['apiVersion', 'kind', 'metadata'] });
  });

  it('exits 2 on usage errors and unreadable files', () => {
    const noArgs = run([]);
    expect(noArgs.status).toBe(2);
    expect(noArgs.stderr).toContain('Usage:');
    expect(run(['validate']).status).toBe(2);
    expect(run(['validate', '--format', 'toml', good]).status).toBe(2);
    expect(run(['lint', good]).status).toBe(2);
    const missing = run(['validate', join(dir, 'missing.yaml')]);
    expect(missing.status).toBe(2);
    expect(missing.stdout).toContain('no such file');
  });
});
