import type { tracing } from '@platform/contracts';
import type { z } from 'zod';
import type { UsageFigures, UsageFilter, UsageGroupRow, UsageRepository } from './usage.repository';

type UsageReport = z.infer<typeof tracing.UsageReport>;
type UsageRow = z.infer<typeof tracing.UsageRow>;

const ms = (ns: number | null) => (ns === null ? null : Math.round(ns / 1e3) / 1e3);
/** Costs are sums of prices per 1,000 tokens: rounded like each call's cost. */
const money = (value: number) => Math.round(value * 1e8) / 1e8;

export function figuresView(row: UsageFigures) {
  return {
    calls: row.calls,
    input_tokens: row.input_tokens,
    output_tokens: row.output_tokens,
    total_tokens: row.input_tokens + row.output_tokens,
    cost: money(row.cost),
    unpriced_calls: row.unpriced_calls,
    errors: row.errors,
  };
}

export function groupView(row: UsageGroupRow): UsageRow {
  return {
    key: row.key,
    ...figuresView(row),
    avg_ms: ms(row.avg_ns),
    p50_ms: ms(row.p50_ns),
    p95_ms: ms(row.p95_ns),
    first_seen: row.first_seen?.toISOString() ?? null,
    last_seen: row.last_seen?.toISOString() ?? null,
  };
}

/** Tokens, cost and latency of model calls, by model, project, user or session, over a time range. */
export class UsageService {
  constructor(private readonly usage: UsageRepository) {}

  async report(query: z.infer<typeof tracing.UsageQuery>): Promise<UsageReport> {
    const filter: UsageFilter = {
      from: query.from ? new Date(query.from) : undefined,
      to: query.to ? new Date(query.to) : undefined,
      project: query.project,
      model: query.model,
      userId: query.user_id,
      sessionId: query.session_id,
    };
    const [totals, page] = await Promise.all([this.usage.totals(filter), this.usage.groups(filter, query.group_by, query.limit, query.offset)]);
    return {
      group_by: query.group_by,
      from: query.from ?? null,
      to: query.to ?? null,
      totals: figuresView(totals),
      groups: page.rows.map(groupView),
      total: page.groups,
      limit: query.limit,
      offset: query.offset,
    };
  }

  /** The model-call section of `GET /api/stats`: totals and the 50 costliest models. */
  async statsSection(query: z.infer<typeof tracing.StatsQuery>): Promise<z.infer<typeof tracing.Stats>['model_calls']> {
    const filter: UsageFilter = { from: query.from ? new Date(query.from) : undefined, to: query.to ? new Date(query.to) : undefined };
    const [totals, page] = await Promise.all([this.usage.totals(filter), this.usage.groups(filter, 'model', 50, 0)]);
    return { from: query.from ?? null, to: query.to ?? null, ...figuresView(totals), per_model: page.rows.map(groupView) };
  }
}
