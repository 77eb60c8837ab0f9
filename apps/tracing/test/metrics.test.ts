import { levenshteinSimilarity, score, type ScoringInput } from '../src/evaluations/metrics';

const input = (output: unknown, expected?: unknown, extra: Partial<ScoringInput> = {}): ScoringInput => ({
  output,
  expected,
  latencyMs: null,
  tokens: null,
  ...extra,
});

describe('evaluation metrics', () => {
  it('exact_match compares trimmed text, and JSON values whatever their key order', () => {
    expect(score('exact_match', input('Paris', 'Paris'))).toBe(1);
    expect(score('exact_match', input(' Paris\n', 'Paris'))).toBe(1);
    expect(score('exact_match', input('paris', 'Paris'))).toBe(0);
    expect(score({ name: 'exact_match', case_sensitive: false }, input('paris', 'Paris'))).toBe(1);
    expect(score('exact_match', input({ b: 2, a: [1, { d: 1, c: 2 }] }, { a: [1, { c: 2, d: 1 }], b: 2 }))).toBe(1);
    expect(score('exact_match', input({ a: 1 }, { a: 2 }))).toBe(0);
    expect(score('exact_match', input('x'))).toBeNull();
  });

  it('contains finds the expected text in the output', () => {
    expect(score('contains', input('The capital is Paris.', 'Paris'))).toBe(1);
    expect(score('contains', input('The capital is Lyon.', 'Paris'))).toBe(0);
    expect(score({ name: 'contains', case_sensitive: false }, input('PARIS!', 'paris'))).toBe(1);
  });

  it('regex uses the metric pattern, else metadata.regex, else the expected output', () => {
    expect(score({ name: 'regex', pattern: '^\\d{3}-\\d{4}$' }, input('555-1234'))).toBe(1);
    expect(score({ name: 'regex', pattern: '^\\d{3}-\\d{4}$' }, input('555-12345'))).toBe(0);
    expect(score('regex', input('order #42', undefined, { metadata: { regex: '#\\d+' } }))).toBe(1);
    expect(score('regex', input('abc', 'b+'))).toBe(1);
  });

  it('levenshtein answers 1 - distance / longer length', () => {
    expect(levenshteinSimilarity('kitten', 'sitting')).toBeCloseTo(1 - 3 / 7, 10);
    expect(score('levenshtein', input('kitten', 'sitting'))).toBeCloseTo(4 / 7, 10);
    expect(score('levenshtein', input('same', 'same'))).toBe(1);
    expect(score('levenshtein', input('', ''))).toBe(1);
    expect(score('levenshtein', input('abc', 'xyz'))).toBe(0);
  });

  it('json_valid checks that a text output parses as JSON', () => {
    expect(score('json_valid', input('{"a": 1}'))).toBe(1);
    expect(score('json_valid', input('[1, 2'))).toBe(0);
    expect(score('json_valid', input('not json'))).toBe(0);
    expect(score('json_valid', input({ already: 'parsed' }))).toBe(1);
  });

  it('latency and tokens report what the example measured, or null', () => {
    expect(score('latency', input('x', undefined, { latencyMs: 123.5 }))).toBe(123.5);
    expect(score('tokens', input('x', undefined, { tokens: 42 }))).toBe(42);
    expect(score('latency', input('x'))).toBeNull();
    expect(score('tokens', input('x'))).toBeNull();
  });
});
