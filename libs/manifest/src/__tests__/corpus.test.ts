// Runs every file of libs/manifest/corpus: valid files must pass with exactly the warnings they
// declare; invalid files must fail with exactly the errors they declare; unverified files (a
// checksum or signature that does not verify) pass with exactly those as warnings and fail with
// exactly those as errors under strict (see corpus/generate.ts).
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { validateManifest } from '../index';

const CORPUS = join(__dirname, '..', '..', 'corpus');
const MANIFEST = /\.(json|ya?ml)$/;

type Expected = { errors: string[]; warnings: string[]; unverified: string[] };

function expectations(file: string): Expected {
  const sidecar = file.replace(MANIFEST, '.expect');
  const text = existsSync(sidecar) ? readFileSync(sidecar, 'utf8').replace(/^/gm, '# ') : readFileSync(file, 'utf8');
  const pick = (tag: string) => [...text.matchAll(new RegExp(`^# ${tag}: (.+)$`, 'gm'))].map((m) => m[1].trim()).sort();
  return { errors: pick('expect'), warnings: pick('expect-warning'), unverified: pick('expect-unverified') };
}

const files = (dir: string) =>
  readdirSync(join(CORPUS, dir))
    .filter((f) => MANIFEST.test(f))
    .sort();
const described = (issues: { code: string; path: string }[]) => issues.map((i) => `${i.code} @ ${i.path}`).sort();

describe('manifest corpus', () => {
  describe.each(files('valid'))('valid/%s', (name) => {
    it('passes with the declared warnings only', () => {
      const file = join(CORPUS, 'valid', name);
      const result = validateManifest(readFileSync(file));
      expect(described(result.errors)).toEqual([]);
      expect(result.valid).toBe(true);
      expect(described(result.warnings)).toEqual(expectations(file).warnings);
    });
  });

  describe.each(files('invalid'))('invalid/%s', (name) => {
    it('fails with the declared errors only', () => {
      const file = join(CORPUS, 'invalid', name);
      const expected = expectations(file);
      expect(expected.errors.length).toBeGreaterThan(0);
      const result = validateManifest(readFileSync(file));
      expect(result.valid).toBe(false);
      expect(described(result.errors)).toEqual(expected.errors);
      for (const error of result.errors) expect(error.message.length).toBeGreaterThan(20);
    });
  });

  describe.each(files('unverified'))('unverified/%s', (name) => {
    const file = join(CORPUS, 'unverified', name);
    const expected = expectations(file);

    it('is valid, with what did not verify as warnings naming how it was computed', () => {
      expect(expected.unverified.length).toBeGreaterThan(0);
      const result = validateManifest(readFileSync(file));
      expect(described(result.errors)).toEqual([]);
      expect(result.valid).toBe(true);
      expect(described(result.warnings)).toEqual([...expected.unverified, ...expected.warnings].sort());
      for (const warning of result.warnings.filter((w) => /mismatch|canonical_form/.test(w.code))) expect(warning.message).toMatch(/RFC 8785/);
    });

    it('fails under strict with the same issues as errors', () => {
      const result = validateManifest(readFileSync(file), { strict: true });
      expect(result.valid).toBe(false);
      expect(described(result.errors)).toEqual(expected.unverified);
    });
  });

  it('has a passing manifest of every kind and a maximal one', () => {
    const kinds = files('valid').map((f) => validateManifest(readFileSync(join(CORPUS, 'valid', f))).manifest?.kind);
    expect(new Set(kinds)).toEqual(new Set(['Agent', 'Task', 'Workflow', 'Flow']));
    expect(files('valid')).toEqual(expect.arrayContaining(['maximal.yaml', 'maximal.json']));
  });
});
