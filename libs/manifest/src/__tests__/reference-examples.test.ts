// The example manifests of the public ancestor schema, with their apiVersion prefix rewritten to
// `std/v`. Its README lists the five that are invalid as published. One more carries an
// identity.checksum computed by other means than this validator's digest: valid, with a warning
// (an error under strict).
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import YAML from 'yaml';
import { manifestChecksum, validateManifest } from '../index';

const EXAMPLES = join(__dirname, '..', '..', '..', '..', 'docs', 'reference', 'ossa-v0.4', 'examples');

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

const read = (file: string) => readFileSync(join(EXAMPLES, file), 'utf8').replace(/\bossa\/v/g, 'std/v');

const INVALID: Record<string, string[]> = {
  'agentscope/react-assistant/agent.ossa.yaml': ['manifest.metadata.namespace.pattern @ $.metadata.namespace'],
  'team-lead-teammate.ossa.yaml': ['manifest.metadata.agentKind.enum @ $.metadata.agentKind'],
  'agent-manifests/sample-compliant-agent.yaml': ['manifest.metadata.version.semver @ $.metadata.version'],
  'economics/marketplace-agent.ossa.json': ['documentation_url', 'icon_url', 'pricing', 'ratings'].map(
    (key) => `manifest.metadata.catalog.unknown_key @ $.metadata.catalog.${key}`,
  ),
  'drupal/content-moderator.ossa.yaml': ['manifest.metadata.name.pattern @ $.metadata.name'],
};
const FULL_IDENTITY = 'agent-manifests/v0.4-identity-security-protocols-full.ossa.yaml';
const UNVERIFIED: Record<string, string[]> = { [FULL_IDENTITY]: ['manifest.metadata.identity.checksum.mismatch @ $.metadata.identity.checksum'] };

const examples = walk(EXAMPLES)
  .map((file) => relative(EXAMPLES, file))
  .sort();

describe('reference examples (apiVersion rewritten to std/v)', () => {
  it('finds the examples', () => {
    expect(examples.length).toBeGreaterThanOrEqual(13);
    expect(examples).toEqual(expect.arrayContaining(Object.keys(INVALID)));
  });

  it.each(examples)('%s', (file) => {
    const result = validateManifest(read(file));
    const errors = result.errors.map((e) => `${e.code} @ ${e.path}`).sort();
    expect(errors).toEqual((INVALID[file] ?? []).sort());
    const unverified = result.warnings.filter((w) => /mismatch|canonical_form/.test(w.code)).map((w) => `${w.code} @ ${w.path}`);
    expect(unverified).toEqual(UNVERIFIED[file] ?? []);
    expect(result.manifest?.apiVersion).toMatch(/^std\/v0\.4/);
  });

  it('validates the full identity example, warning that its checksum was computed another way; strict refuses it', () => {
    const result = validateManifest(read(FULL_IDENTITY));
    expect(result).toMatchObject({ valid: true, errors: [] });
    const warning = result.warnings.find((w) => w.code === 'manifest.metadata.identity.checksum.mismatch');
    expect(warning?.message).toMatch(/RFC 8785 canonical JSON/);
    const strict = validateManifest(read(FULL_IDENTITY), { strict: true });
    expect(strict.valid).toBe(false);
    expect(strict.errors.map((e) => e.code)).toEqual(['manifest.metadata.identity.checksum.mismatch']);
  });

  it('accepts the full identity example once its checksum is the real one', () => {
    const document = YAML.parse(read('agent-manifests/v0.4-identity-security-protocols-full.ossa.yaml'));
    document.metadata.identity.checksum = manifestChecksum(document);
    expect(validateManifest(document)).toMatchObject({ valid: true, errors: [] });
  });

  it('validates the agentscope extension as extensions.runtime_framework', () => {
    const document = YAML.parse(read('agentscope/react-assistant/agent.ossa.yaml'));
    document.metadata.namespace = 'examples';
    document.extensions = { runtime_framework: document.extensions.agentscope };
    expect(validateManifest(document)).toMatchObject({ valid: true, errors: [] });
    document.extensions.runtime_framework.max_iters = 500;
    expect(validateManifest(document).errors.map((e) => e.code)).toEqual(['manifest.extensions.runtime_framework.max_iters.maximum']);
  });
});
