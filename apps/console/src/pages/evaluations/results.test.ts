import { isRatioMetric, metricName, parseExamples, preview, scoreSeries, summariseScores, type EvaluationResult } from './results';

// Cast: fields the summaries do not read (a judge's reasoning) are left out.
const result = (index: number, scores: Record<string, number | null> | null, status: EvaluationResult['status'] = 'succeeded'): EvaluationResult =>
  ({
    index,
    status,
    attempts: 1,
    input: `q${index}`,
    scores,
    trace_id: null,
    latency_ms: null,
    error: null,
  }) as EvaluationResult;

describe('evaluation results', () => {
  it('names metrics given as a name or as a spec', () => {
    expect([metricName('exact_match'), metricName({ name: 'regex', pattern: '^a' })]).toEqual(['exact_match', 'regex']);
    expect(['exact_match', 'levenshtein', 'latency', 'tokens'].filter(isRatioMetric)).toEqual(['exact_match', 'levenshtein']);
  });

  it('averages each metric over the scores that applied, counting the ones that could not', () => {
    const results = [
      result(0, { exact_match: 1, latency: null }),
      result(1, { exact_match: 0, latency: 12 }),
      result(2, null, 'failed'),
      result(3, { exact_match: 1, latency: null }),
    ];
    expect(summariseScores(['exact_match', 'latency', 'tokens'], results)).toEqual([
      { metric: 'exact_match', mean: 2 / 3, scored: 3, skipped: 0 },
      { metric: 'latency', mean: 12, scored: 1, skipped: 2 },
      { metric: 'tokens', mean: null, scored: 0, skipped: 0 },
    ]);
  });

  it('gives a chart row per example, with a null where a metric has no score', () => {
    expect(scoreSeries(['exact_match', 'levenshtein'], [result(0, { exact_match: 1, levenshtein: 0.5 }), result(1, null, 'pending')])).toEqual([
      { example: '#1', exact_match: 1, levenshtein: 0.5 },
      { example: '#2', exact_match: null, levenshtein: null },
    ]);
  });

  it('reads examples as a JSON array or as JSON lines', () => {
    expect(parseExamples('[{"input":"a","expected_output":"b"},{"input":{"q":1}}]')).toEqual({
      examples: [{ input: 'a', expected_output: 'b' }, { input: { q: 1 } }],
      errors: [],
    });
    expect(parseExamples('{"input":"a","output":"a"}\n\n{"input":"b","metadata":{"regex":"^b"}}').examples).toHaveLength(2);
  });

  it('says which example is wrong and why', () => {
    expect(parseExamples('').errors).toEqual(['add at least one example']);
    expect(parseExamples('[{"input":').errors[0]).toMatch(/^not JSON: /);
    expect(parseExamples('{"input":1}\nnope').errors).toEqual(['line 2 is not JSON']);
    expect(parseExamples('[{"expected_output":"b"},{"input":"a","metadata":"x"}]').errors).toEqual([
      expect.stringMatching(/^example 1: input /),
      expect.stringMatching(/^example 2: metadata /),
    ]);
  });

  it('shortens long values for a table cell', () => {
    expect(preview('x'.repeat(200), 10)).toBe(`${'x'.repeat(9)}…`);
    expect(preview({ a: 1 })).toBe('{"a":1}');
    expect(preview(undefined)).toBe('');
  });
});
