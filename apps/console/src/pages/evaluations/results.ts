import { tracing } from '@platform/contracts';
import type { z } from 'zod';

export type EvaluationResult = z.infer<typeof tracing.EvaluationResult>;
export type MetricSpec = tracing.MetricSpec;
type Example = tracing.Example;

/** The name a metric's scores are kept under (`regex`, or a spec's `name`). */
export function metricName(spec: MetricSpec): string {
  return typeof spec === 'string' ? spec : spec.name;
}

/** Metrics measured in ms or tokens rather than scored from 0 to 1: kept off the score charts. */
const UNBOUNDED_METRICS = new Set(['latency', 'tokens']);
export function isRatioMetric(metric: string): boolean {
  return !UNBOUNDED_METRICS.has(metric);
}

export interface MetricSummary {
  metric: string;
  /** Mean of the scores that applied; null when none did. */
  mean: number | null;
  /** Examples with a score; `skipped` scored null (the metric could not apply). */
  scored: number;
  skipped: number;
}

/** Each metric's mean over the results that have scores, in the evaluation's metric order. */
export function summariseScores(metrics: readonly string[], results: readonly EvaluationResult[]): MetricSummary[] {
  return metrics.map((metric) => {
    let sum = 0;
    let scored = 0;
    let skipped = 0;
    for (const result of results) {
      if (!result.scores || !(metric in result.scores)) continue;
      const score = result.scores[metric];
      if (score === null || !Number.isFinite(score)) skipped++;
      else {
        sum += score;
        scored++;
      }
    }
    return { metric, mean: scored ? sum / scored : null, scored, skipped };
  });
}

/** Rows for a chart of the scores per example: `{ example: '#1', exact_match: 1, levenshtein: 0.8 }`. */
export function scoreSeries(metrics: readonly string[], results: readonly EvaluationResult[]): Array<Record<string, string | number | null>> {
  return results.map((result) => {
    const row: Record<string, string | number | null> = { example: `#${result.index + 1}` };
    for (const metric of metrics) row[metric] = result.scores?.[metric] ?? null;
    return row;
  });
}

/**
 * Examples typed or pasted by a person: a JSON array of examples, or one example a line (JSON
 * Lines), each checked with the tracing service's own schema; errors name the example.
 */
export function parseExamples(text: string): { examples: Example[]; errors: string[] } {
  const trimmed = text.trim();
  if (!trimmed) return { examples: [], errors: ['add at least one example'] };
  let values: unknown[];
  if (trimmed.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(trimmed);
      values = Array.isArray(parsed) ? parsed : [parsed];
    } catch (error) {
      return { examples: [], errors: [`not JSON: ${(error as Error).message}`] };
    }
  } else {
    values = [];
    const lines = trimmed.split('\n');
    for (let i = 0; i < lines.length; i++) {
      if (!lines[i].trim()) continue;
      try {
        values.push(JSON.parse(lines[i]));
      } catch {
        return { examples: [], errors: [`line ${i + 1} is not JSON`] };
      }
    }
  }
  const examples: Example[] = [];
  const errors: string[] = [];
  values.forEach((value, index) => {
    const checked = tracing.Example.safeParse(value);
    if (checked.success) examples.push(checked.data);
    else errors.push(`example ${index + 1}: ${checked.error.issues.map((issue) => `${issue.path.join('.') || 'example'} ${issue.message}`).join('; ')}`);
  });
  const whole = tracing.CreateDataset.shape.data.safeParse(examples);
  if (errors.length === 0 && !whole.success) errors.push(whole.error.issues[0]?.message ?? 'invalid examples');
  return { examples, errors };
}

/** A value of an example or a result, short enough for a table cell. */
export function preview(value: unknown, max = 120): string {
  if (value === undefined) return '';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
