import type { localModels } from '@platform/contracts';

type UsageRecord = Pick<localModels.UsageRecord, 'at' | 'model' | 'promptTokens' | 'completionTokens' | 'cost'>;

export interface ModelTotals {
  model: string;
  calls: number;
  promptTokens: number;
  completionTokens: number;
  cost: number;
}

/** One day of the chart: the day (`YYYY-MM-DD`, UTC) and one number per model. */
export type DayRow = { day: string } & Record<string, number | string>;

export interface UsageSeries {
  /** The models seen, most expensive first (then most tokens, then by name): the charts' series. */
  models: string[];
  /** Every UTC day from `from` to `to`, days without calls at zero, so the axis has no holes. */
  costByDay: DayRow[];
  tokensByDay: DayRow[];
  byModel: ModelTotals[];
}

const DAY_MS = 86_400_000;
const dayOf = (at: string | Date) => new Date(at).toISOString().slice(0, 10);
// Costs are sums of small fractions: keep them to micro-units so 0.1 + 0.2 charts as 0.3.
const money = (value: number) => Math.round(value * 1e6) / 1e6;

/**
 * Usage records (local-models' `GET /usage`) summed per model and per UTC day, for the charts. Records
 * outside [from, to] (days, inclusive) are left out.
 */
export function aggregateUsage(records: readonly UsageRecord[], from: string, to: string): UsageSeries {
  const totals = new Map<string, ModelTotals>();
  const cost = new Map<string, Map<string, number>>();
  const tokens = new Map<string, Map<string, number>>();
  const add = (table: Map<string, Map<string, number>>, day: string, model: string, value: number) => {
    const row = table.get(day) ?? new Map<string, number>();
    row.set(model, (row.get(model) ?? 0) + value);
    table.set(day, row);
  };
  for (const record of records) {
    const day = dayOf(record.at);
    if (day < from || day > to) continue;
    const sum = totals.get(record.model) ?? { model: record.model, calls: 0, promptTokens: 0, completionTokens: 0, cost: 0 };
    sum.calls += 1;
    sum.promptTokens += record.promptTokens;
    sum.completionTokens += record.completionTokens;
    sum.cost += record.cost;
    totals.set(record.model, sum);
    add(cost, day, record.model, record.cost);
    add(tokens, day, record.model, record.promptTokens + record.completionTokens);
  }
  const byModel = [...totals.values()]
    .map((sum) => ({ ...sum, cost: money(sum.cost) }))
    .sort((a, b) => b.cost - a.cost || b.promptTokens + b.completionTokens - (a.promptTokens + a.completionTokens) || a.model.localeCompare(b.model));
  const models = byModel.map((sum) => sum.model);
  const rows = (table: Map<string, Map<string, number>>, round: (value: number) => number): DayRow[] =>
    daysBetween(from, to).map((day) => {
      const row: DayRow = { day };
      for (const model of models) row[model] = round(table.get(day)?.get(model) ?? 0);
      return row;
    });
  return { models, costByDay: rows(cost, money), tokensByDay: rows(tokens, (value) => value), byModel };
}

/** Every UTC day from `from` to `to`, inclusive (at most 366, the longest period the page asks for). */
export function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  for (let at = Date.parse(`${from}T00:00:00Z`); at <= Date.parse(`${to}T00:00:00Z`) && days.length < 366; at += DAY_MS) days.push(dayOf(new Date(at)));
  return days;
}

/** The period of the last `days` days up to `now`, as the page asks local-models for it. */
export function lastDays(days: number, now = new Date()): { from: string; to: string; fromIso: string; toIso: string } {
  const to = dayOf(now);
  const fromDate = new Date(Date.parse(`${to}T00:00:00Z`) - (days - 1) * DAY_MS);
  return { from: dayOf(fromDate), to, fromIso: fromDate.toISOString(), toIso: new Date(Date.parse(`${to}T00:00:00Z`) + DAY_MS).toISOString() };
}
