import { formatOf, manifestObject, placeIssues, syntaxProblems } from './manifest-diagnostics';

const text = ['apiVersion: std/v0.4.7', 'kind: Agent', 'metadata:', '  name: Bad_Name', '  version: 1.0.0', ''].join('\n');

describe('placeIssues', () => {
  it("places the gateway's issues and warnings at their lines, in text order", () => {
    const placed = placeIssues(text, {
      issues: [
        { path: 'body.manifest.metadata.name', message: 'metadata.name must match the pattern', code: 'manifest.metadata.name.pattern' },
        { path: 'body.manifest.kind', message: 'kind is wrong', code: 'manifest.kind.enum' },
      ],
      warnings: [{ path: '$.metadata.version', message: 'consider 1.0.1', code: 'w' }],
    });
    expect(placed.map((issue) => [issue.line, issue.severity, issue.code])).toEqual([
      [2, 'error', 'manifest.kind.enum'],
      [4, 'error', 'manifest.metadata.name.pattern'],
      [5, 'warning', 'w'],
    ]);
    expect(text.slice(placed[1].from, placed[1].to)).toBe('name: Bad_Name');
  });

  it('names the missing key of an issue placed at its parent', () => {
    const [issue] = placeIssues(text, { issues: [{ path: '$.metadata.identity', message: 'is required', code: 'r' }] });
    expect(issue).toMatchObject({ line: 3, message: 'is required (at $.metadata.identity)' });
  });

  it("takes the request validator's paths and ignores what is not an issue", () => {
    const placed = placeIssues(text, { issues: [{ path: 'body.manifest.metadata.version', message: 'bad', code: 'c' }, { nonsense: true }, null] });
    expect(placed).toHaveLength(1);
    expect(placed[0].line).toBe(5);
    expect(placeIssues(text, undefined)).toEqual([]);
    expect(placeIssues(text, 'a string')).toEqual([]);
  });
});

describe('syntaxProblems', () => {
  it('finds where YAML stops reading', () => {
    const [problem] = syntaxProblems('kind: Agent\nmetadata: {name: x\n', 'yaml');
    expect(problem).toMatchObject({ severity: 'error', code: 'manifest.parse.yaml' });
    expect(problem.line).toBeGreaterThanOrEqual(2);
    expect(syntaxProblems(text, 'yaml')).toEqual([]);
  });

  it('finds where JSON stops reading', () => {
    const [problem] = syntaxProblems('{\n  "kind": "Agent",\n  oops\n}', 'json');
    expect(problem).toMatchObject({ line: 3, code: 'manifest.parse.json' });
    expect(syntaxProblems('{"a": 1}', 'json')).toEqual([]);
  });
});

describe('formatOf and manifestObject', () => {
  it('tells the format by the file name, else by the text', () => {
    expect(formatOf('{}', 'agent.yaml')).toBe('yaml');
    expect(formatOf('a: 1', 'agent.JSON')).toBe('json');
    expect(formatOf('  {"a": 1}')).toBe('json');
    expect(formatOf('a: 1')).toBe('yaml');
  });

  it('reads an object, and nothing else', () => {
    expect(manifestObject(text, 'yaml')).toMatchObject({ kind: 'Agent', metadata: { name: 'Bad_Name' } });
    expect(manifestObject('[1]', 'json')).toBeUndefined();
    expect(manifestObject('{', 'json')).toBeUndefined();
    expect(manifestObject('just text', 'yaml')).toBeUndefined();
  });
});
