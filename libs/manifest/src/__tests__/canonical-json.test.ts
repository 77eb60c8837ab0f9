import { execFileSync } from 'node:child_process';
import { canonicalJson } from '../index';

// Cases from RFC 8785 and its test vectors, plus the edges that tend to go wrong.
const CASES: [string, unknown][] = [
  ['sorted keys, nested', { b: [2, { z: 1, a: null }], a: 'x', A: true }],
  [
    'key order by UTF-16 code units',
    {
      '\u20ac': 'Euro Sign',
      '\r': 'Carriage Return',
      '\ufb33': 'Hebrew Letter Dalet With Dagesh',
      '1': 'One',
      '\ud83d\ude00': 'Emoji: Grinning Face',
      '\u0080': 'Control',
      '\u00f6': 'Latin Small Letter O With Diaeresis',
    },
  ],
  // eslint-disable-next-line no-loss-of-precision -- RFC 8785 vectors: the rounding is the point
  ['numbers as ECMAScript writes them', [333333333.33333329, 1e30, 4.5, 2e-3, 0.000001, 1e-7, -0, 1e21, 123456789012345680000]],
  ['string escapes', ['\u20ac$\u000f\nA\'B"\\\\"/', '\u2028\u2029', '\u007f']],
  ['empty containers', { a: {}, b: [], c: '' }],
  ['undefined members dropped', { a: undefined, b: 1 }],
];

describe('canonicalJson (RFC 8785)', () => {
  it('writes the RFC 8785 example', () => {
    expect(
      canonicalJson({
        // eslint-disable-next-line no-loss-of-precision -- the RFC 8785 example, rounding included
        numbers: [333333333.33333329, 1e30, 4.5, 2e-3, 0.000000000000000000000000001],
        string: '\u20ac$\u000f\nA\'B"\\\\"/',
        literals: [null, true, false],
      }),
    ).toBe('{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}');
  });

  it('matches the canonicalize package on every case', () => {
    const script = `import c from 'canonicalize'; const cases = JSON.parse(process.argv[1]); process.stdout.write(JSON.stringify(cases.map((x) => c(x))));`;
    const serializable = CASES.map(([, value]) => value);
    const theirs = JSON.parse(
      execFileSync(process.execPath, ['--input-type=module', '-e', script, JSON.stringify(serializable)], { cwd: __dirname, encoding: 'utf8' }),
    );
    expect(serializable.map((value) => canonicalJson(JSON.parse(JSON.stringify(value))))).toEqual(theirs);
  });

  it('refuses values JSON cannot carry', () => {
    expect(() => canonicalJson({ a: Number.NaN })).toThrow(TypeError);
    expect(() => canonicalJson([Infinity])).toThrow(TypeError);
    expect(() => canonicalJson('\ud800')).toThrow(TypeError);
  });
});
