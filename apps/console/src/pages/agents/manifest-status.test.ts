import { parse } from 'yaml';
import { nextPatch, withLifecycleStatus } from './manifest-status';

const yamlText = ['# the search agent', 'apiVersion: std/v0.4.7', 'kind: Agent', 'metadata:', '  name: search', '  version: 1.4.2 # pinned', ''].join('\n');
const jsonText = JSON.stringify({ apiVersion: 'std/v0.4.7', kind: 'Agent', metadata: { name: 'search', version: '2.0.0-rc.1', status: 'active' } }, null, 2);

describe('nextPatch', () => {
  it('bumps the patch of the core version', () => {
    expect(nextPatch('1.4.2')).toBe('1.4.3');
    expect(nextPatch('2.0.0-rc.1+build.5')).toBe('2.0.1');
    expect(() => nextPatch('latest')).toThrow('not a semantic version');
  });
});

describe('withLifecycleStatus', () => {
  it('deprecates a YAML manifest as a new version, keeping its comments', () => {
    const result = withLifecycleStatus(yamlText, 'yaml', 'deprecated', { message: 'Use search-v2' });
    expect(result.version).toBe('1.4.3');
    expect(result.text).toContain('# the search agent');
    expect(result.text).toContain('# pinned');
    expect(parse(result.text).metadata).toEqual({ name: 'search', version: '1.4.3', status: 'deprecated', deprecated_message: 'Use search-v2' });
  });

  it('revokes a JSON manifest with the time of revocation', () => {
    const result = withLifecycleStatus(jsonText, 'json', 'revoked', { now: new Date('2026-11-27T23:00:00Z') });
    expect(result.version).toBe('2.0.1');
    expect(JSON.parse(result.text).metadata).toEqual({ name: 'search', version: '2.0.1', status: 'revoked', revoked_at: '2026-11-27T23:00:00.000Z' });
    expect(result.text.startsWith('{\n  "apiVersion"')).toBe(true);
  });

  it('refuses a manifest without a version or that does not parse', () => {
    expect(() => withLifecycleStatus('metadata:\n  name: x\n', 'yaml', 'deprecated')).toThrow('not a semantic version');
    expect(() => withLifecycleStatus('metadata: [unclosed', 'yaml', 'deprecated')).toThrow();
    expect(() => withLifecycleStatus('{"metadata":', 'json', 'revoked')).toThrow(SyntaxError);
  });
});
