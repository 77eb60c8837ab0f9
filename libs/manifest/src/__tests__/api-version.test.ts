// apiVersion as spec 1 words it: `std/v` + 0.5 | 0.4 | 0.3 (patch >= 4) | 0.2.2..0.2.9 (optional
// -dev) | 1, then optionally `.N` and `-<suffix>` (letters, digits, dots, hyphens).
import { validateManifest } from '../index';

const check = (apiVersion: string) => validateManifest({ apiVersion, kind: 'Agent', metadata: { name: 'a' } });

const ACCEPTED: [string, string | undefined][] = [
  ['std/v0.4', undefined],
  ['std/v0.4.7', undefined],
  ['std/v0.4.0', undefined],
  ['std/v0.4.12', undefined],
  ['std/v0.4.7.0', undefined],
  ['std/v0.4.7-rc.1', undefined],
  ['std/v0.4.7-rc-1', undefined],
  ['std/v0.4-beta', undefined],
  ['std/v0.4.7.1-alpha.2-x', undefined],
  ['std/v0.5', 'newer'],
  ['std/v0.5.0', 'newer'],
  ['std/v0.5.1.2-draft', 'newer'],
  ['std/v1', 'newer'],
  ['std/v1.2', 'newer'],
  ['std/v1-beta', 'newer'],
  ['std/v0.3.4', 'legacy'],
  ['std/v0.3.9', 'legacy'],
  ['std/v0.3.10', 'legacy'],
  ['std/v0.3.4.1', 'legacy'],
  ['std/v0.3.5-hotfix', 'legacy'],
  ['std/v0.2.2', 'legacy'],
  ['std/v0.2.9', 'legacy'],
  ['std/v0.2.5-dev', 'legacy'],
  ['std/v0.2.5.1', 'legacy'],
  ['std/v0.2.5-dev.3', 'legacy'],
];

const REJECTED = [
  'ossa/v0.4.7', // upstream prefix
  'std/0.4.7', // no v
  'STD/v0.4.7',
  'std/V0.4.7',
  'std/v0.4.7 ', // trailing space
  ' std/v0.4.7',
  'std/v0.3', // 0.3 needs a patch of 4 or more
  'std/v0.3.0',
  'std/v0.3.1',
  'std/v0.3.3',
  'std/v0.3.3.9',
  'std/v0.3.04',
  'std/v0.2',
  'std/v0.2.0',
  'std/v0.2.1',
  'std/v0.2.10',
  'std/v0.1.0',
  'std/v0.6',
  'std/v2',
  'std/v1.0.0', // 1, one further segment, no more
  'std/v0.4.7.0.1',
  'std/v0.4.',
  'std/v0.4.7-',
  'std/v0.4.7-rc_1',
  'std/v0.4.7-rc+1',
  'std/v0.4.7+build',
  'std/v0.4.07',
  'std/v',
  '',
];

describe('apiVersion', () => {
  it.each(ACCEPTED)('accepts %s', (apiVersion, warning) => {
    const result = check(apiVersion);
    expect(result.errors).toEqual([]);
    expect(result.warnings.map((w) => w.code)).toEqual(warning ? [`manifest.apiVersion.${warning}`] : []);
  });

  it.each(REJECTED)('rejects %j', (apiVersion) => {
    const result = check(apiVersion);
    expect(result.errors).toEqual([expect.objectContaining({ path: '$.apiVersion', code: 'manifest.apiVersion.pattern' })]);
    expect(result.errors[0].message).toContain(JSON.stringify(apiVersion));
  });
});
