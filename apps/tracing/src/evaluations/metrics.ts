import type { tracing } from '@platform/contracts';
import { distance } from 'fastest-levenshtein';

type MetricName = tracing.MetricName;
type MetricSpec = tracing.MetricSpec;

/** What a metric sees of one example once its output is known. */
export interface ScoringInput {
  output: unknown;
  expected: unknown;
  metadata?: Record<string, unknown>;
  latencyMs: number | null;
  tokens: number | null;
}

/** Longest text a text metric compares (longer outputs are cut, so one example cannot stall a worker). */
const MAX_TEXT = 100_000;
/** Longest text a user-supplied regex is run over: a pathological pattern stays bounded. */
const MAX_REGEX_TEXT = 10_000;

/** The name a metric's scores are kept under: the built-in metric's, or an LLM judge's own. */
export const metricName = (spec: MetricSpec): string => (typeof spec === 'string' ? spec : spec.name);

export const isJudge = (spec: MetricSpec): spec is tracing.LlmJudgeMetric => typeof spec === 'object' && 'kind' in spec && spec.kind === 'llm_judge';

/** Text of a value: strings as they are, anything else as JSON. */
export function asText(value: unknown): string {
  if (value === undefined || value === null) return '';
  return (typeof value === 'string' ? value : JSON.stringify(value)).slice(0, MAX_TEXT);
}

function canonical(value: unknown): string {
  if (typeof value === 'string') return value.trim();
  const sort = (item: unknown): unknown =>
    Array.isArray(item)
      ? item.map(sort)
      : item && typeof item === 'object'
        ? Object.fromEntries(
            Object.keys(item)
              .sort()
              .map((key) => [key, sort((item as Record<string, unknown>)[key])]),
          )
        : item;
  return JSON.stringify(sort(value)) ?? '';
}

/** The regex of the `regex` metric: the metric's `pattern`, else the example's `metadata.regex`, else its expected output. */
export function regexPattern(spec: MetricSpec, input: Pick<ScoringInput, 'expected' | 'metadata'>): string | undefined {
  if (typeof spec === 'object' && 'pattern' in spec && spec.pattern) return spec.pattern;
  const fromMetadata = input.metadata?.regex;
  if (typeof fromMetadata === 'string') return fromMetadata;
  return typeof input.expected === 'string' ? input.expected : undefined;
}

/** Levenshtein similarity in [0, 1]: 1 - distance / longer length (1 for two empty texts). */
export function levenshteinSimilarity(a: string, b: string): number {
  const longer = Math.max(a.length, b.length);
  return longer === 0 ? 1 : 1 - distance(a, b) / longer;
}

/**
 * Scores one example. Every metric answers a number, or null when it cannot apply (no expected
 * output to compare with, no latency or token count known).
 */
export function score(spec: MetricSpec, input: ScoringInput): number | null {
  if (isJudge(spec)) return null; // graded by a model (judge.ts), not here
  const name: MetricName = typeof spec === 'string' ? spec : spec.name;
  const caseSensitive = typeof spec === 'object' ? spec.case_sensitive !== false : true;
  const fold = (text: string) => (caseSensitive ? text : text.toLowerCase());
  switch (name) {
    case 'exact_match':
      if (input.expected === undefined) return null;
      return fold(canonical(input.output)) === fold(canonical(input.expected)) ? 1 : 0;
    case 'contains':
      if (input.expected === undefined) return null;
      return fold(asText(input.output)).includes(fold(asText(input.expected))) ? 1 : 0;
    case 'regex': {
      const pattern = regexPattern(spec, input);
      if (pattern === undefined) return null;
      return new RegExp(pattern, caseSensitive ? 'u' : 'iu').test(asText(input.output).slice(0, MAX_REGEX_TEXT)) ? 1 : 0;
    }
    case 'levenshtein':
      if (input.expected === undefined) return null;
      return levenshteinSimilarity(fold(asText(input.output)), fold(asText(input.expected)));
    case 'json_valid':
      if (typeof input.output !== 'string') return input.output === undefined ? 0 : 1;
      try {
        JSON.parse(input.output);
        return 1;
      } catch {
        return 0;
      }
    case 'latency':
      return input.latencyMs;
    case 'tokens':
      return input.tokens;
  }
}
