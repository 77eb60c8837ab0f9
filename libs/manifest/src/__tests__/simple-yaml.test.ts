// simple-yaml must give exactly what the yaml package gives, or step aside (UNSUPPORTED).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { parseSimpleYaml, UNSUPPORTED } from '../simple-yaml';

const CORPUS = join(__dirname, '..', '..', 'corpus');
const EXAMPLES = join(__dirname, '..', '..', '..', '..', 'docs', 'reference', 'ossa-v0.4', 'examples');

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : /\.ya?ml$/.test(name) ? [path] : [];
  });
}

function yamlPackage(text: string): unknown {
  try {
    return YAML.parse(text, { uniqueKeys: true });
  } catch {
    return UNSUPPORTED;
  }
}

/** Either the same document as the yaml package, or UNSUPPORTED; returns whether it answered. */
function agrees(text: string): boolean {
  const simple = parseSimpleYaml(text);
  if (simple === UNSUPPORTED) return false;
  expect(simple).toEqual(yamlPackage(text));
  return true;
}

const SNIPPETS: [string, boolean][] = [
  // [text, whether simple-yaml must answer it itself]
  ['a: 1\nb: -2\nc: +3\nd: 1.5\ne: .5\nf: 1e3\ng: 1.\nh: 007\n', true],
  ['a: true\nb: False\nc: TRUE\nd: yes\ne: no\nf: on\ng: null\nh: ~\ni: Null\nj:\n', true],
  ['a: 1.0.0\nb: 2026-01-01T00:00:00Z\nc: 12:30\nd: http://x.org/a?b=c#frag\ne: a#b\nf: -foo\n', true],
  ["a: x # comment\nb: \"q # not a comment\" # comment\nc: 'it''s'\n# full line\n  # indented comment\n", true],
  ['a: "esc \\" \\\\ \\n \\u00e9 \\/"\nb: \'\'\nc: ""\n', true],
  ['---\na:\n  b:\n    - 1\n    - x: 1\n      y: [\n', false],
  ['---\nk:\n  - a\n  -\n  - b: 1\n    c:\n      - d\n  - - n1\n    - n2\nz: 0\n', true],
  ['k:\n- a\n- b\nnext: 1\n', true],
  ['list:\n  -   key: v\n      other: w\n', true],
  ['"quoted key": 1\n\'single\': 2\nspace key: 3\nx-signature: 4\nexample.org/owner: 5\n', true],
  ['a: 1\r\nb:\r\n  c: 2\r\n', true],
  ['key: # only a comment\n  nested: 1\n', true],
  ['a: |\n  line one\n    indented # not a comment\n\n  # nor this\n  last  \n\n\nb: 1\n', true],
  ['a: |-\n  stripped\n  text\nb: >\n  folded\n  into one\n\n  paragraph two\nc: >-\n  x\n', true],
  ['list:\n  - |\n    item text\n  - key: |\n      nested\n    other: 1\n', true],
  ['a: |\nb: 1\n', true],
  ['a: [low, medium, high]\nb: [1, 2.5, true, null]\nc: [ x y , z ] # c\n', true],
  // what simple-yaml leaves to the yaml package
  ['a: |+\n  kept\n\n', false],
  ['a: |2\n   explicit\n', false],
  ['a: >\n  folded\n    more indented\n  back\n', false],
  ['a: |\n\n  leading empty line\n', false],
  ['a: ["quoted", b]\n', false],
  ['a: [b, [c]]\n', false],
  ['a: [b,\n  c]\n', false],
  ['a: []\nb: {}\nc: [ ] # empty\n', true],
  ['a: {b: 1}\n', false],
  ['a: &x 1\nb: *x\n', false],
  ['a: !!str 1\n', false],
  ['a: 0x1F\nb: 0o17\n', false],
  ['a: .inf\n', false],
  ['a: multi\n  line\n', false],
  ['a: 1\na: 2\n', false],
  ['a:\n\tb: 1\n', false],
  ['1: a\n', false],
  ['true: a\n', false],
  ['a: 1\n---\nb: 2\n', false],
  ['- a\n- b\n', false],
  ['a:\n    b: 1\n  c: 2\n', false],
  ['a: b: c\n', false],
  ['a: "unterminated\n', false],
  ['a: "tab\\x41"\n', false],
  ['? complex\n: key\n', false],
  ['__proto__: 1\n', false],
  ['', false],
];

describe('parseSimpleYaml', () => {
  it.each(SNIPPETS)('%j', (text, answers) => {
    expect(agrees(text)).toBe(answers);
  });

  it('agrees with the yaml package on every corpus file and reference example', () => {
    const files = [...walk(CORPUS), ...walk(EXAMPLES)];
    expect(files.length).toBeGreaterThan(100);
    const answered = files.filter((file) => agrees(readFileSync(file, 'utf8')));
    expect(answered.length).toBeGreaterThan(files.length * 0.8);
  });

  it('reads what YAML.stringify writes for the corpus documents', () => {
    for (const file of walk(join(CORPUS, 'valid'))) {
      const document = YAML.parse(readFileSync(file, 'utf8'));
      const text = YAML.stringify(document, { lineWidth: 0 });
      expect(parseSimpleYaml(text)).toEqual(document);
    }
  });
});

describe('parseSimpleYaml on mutated manifests', () => {
  // Deterministic mutations of real manifests: a character deleted, inserted or doubled, a line
  // re-indented. Wherever simple-yaml answers, the yaml package must give the same document.
  const INSERTS = [' ', '  ', ':', ': ', '#', ' #', '-', '- ', '|', '>', '"', "'", '[', ']', '{', '\n', '\n  ', ',', '\\', '&', '*', '!', '%', '?', '0', 'x'];
  let seed = 42;
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const sources = [...walk(join(CORPUS, 'valid')), ...walk(EXAMPLES)].map((file) => readFileSync(file, 'utf8'));

  it('never disagrees with the yaml package', () => {
    let answered = 0;
    for (let i = 0; i < 3000; i++) {
      const source = sources[random(sources.length)];
      const at = random(source.length);
      const kind = random(3);
      const mutated =
        kind === 0
          ? source.slice(0, at) + source.slice(at + 1)
          : kind === 1
            ? source.slice(0, at) + INSERTS[random(INSERTS.length)] + source.slice(at)
            : source.slice(0, at) + source.slice(at, source.indexOf('\n', at) + 1).replace(/^(\S)/, ' $1') + source.slice(source.indexOf('\n', at) + 1);
      const simple = parseSimpleYaml(mutated);
      if (simple === UNSUPPORTED) continue;
      answered++;
      expect({ text: mutated, document: simple }).toEqual({ text: mutated, document: yamlPackage(mutated) });
    }
    expect(answered).toBeGreaterThan(1000);
  });
});
