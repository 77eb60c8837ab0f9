import type { Db } from '../database';

export type UsageGroup = 'model' | 'project' | 'user' | 'session';

export interface UsageFilter {
  from?: Date;
  to?: Date;
  project?: string;
  model?: string;
  userId?: string;
  sessionId?: string;
}

export interface UsageFigures {
  calls: number;
  input_tokens: number;
  output_tokens: number;
  cost: number;
  unpriced_calls: number;
  errors: number;
}

export interface UsageGroupRow extends UsageFigures {
  key: string | null;
  avg_ns: number | null;
  p50_ns: number | null;
  p95_ns: number | null;
  first_seen: Date | null;
  last_seen: Date | null;
}

const KEY: Record<UsageGroup, string> = { model: 'model', project: 'project', user: 'user_key', session: 'session_key' };

const FIGURES = `count(*)::float8 AS calls,
  coalesce(sum(input_tokens), 0)::float8 AS input_tokens,
  coalesce(sum(output_tokens), 0)::float8 AS output_tokens,
  coalesce(sum(cost), 0)::float8 AS cost,
  count(*) FILTER (WHERE cost IS NULL)::float8 AS unpriced_calls,
  count(*) FILTER (WHERE status_code = 2)::float8 AS errors`;

/**
 * Aggregates over model calls (spans with a model, costed at ingestion). A call's user and session
 * are its own `user.id` / `session.id`, else those of another span of its trace: instrumentations
 * often set them once, on the request's root span.
 */
export class UsageRepository {
  constructor(private readonly db: Db) {}

  private calls(filter: UsageFilter): { sql: string; params: unknown[] } {
    const params: unknown[] = [];
    const where = ['model IS NOT NULL'];
    if (filter.from) where.push(`start_time >= $${params.push(filter.from.toISOString())}::timestamptz`);
    if (filter.to) where.push(`start_time < $${params.push(filter.to.toISOString())}::timestamptz`);
    if (filter.project) where.push(`project = $${params.push(filter.project)}`);
    if (filter.model) where.push(`model = $${params.push(filter.model)}`);
    const keyed: string[] = ['true'];
    if (filter.userId) keyed.push(`user_key = $${params.push(filter.userId)}`);
    if (filter.sessionId) keyed.push(`session_key = $${params.push(filter.sessionId)}`);
    const sql = `WITH calls AS (
         SELECT trace_id, project, model, user_id, session_id, status_code, duration_nano, start_time, input_tokens, output_tokens, cost
         FROM spans WHERE ${where.join(' AND ')}),
       owners AS (
         SELECT trace_id, min(user_id) AS user_id, min(session_id) AS session_id FROM spans
         WHERE trace_id IN (SELECT trace_id FROM calls WHERE user_id IS NULL OR session_id IS NULL)
           AND (user_id IS NOT NULL OR session_id IS NOT NULL)
         GROUP BY trace_id),
       keyed AS (
         SELECT c.*, coalesce(c.user_id, o.user_id) AS user_key, coalesce(c.session_id, o.session_id) AS session_key
         FROM calls c LEFT JOIN owners o USING (trace_id)),
       chosen AS (SELECT * FROM keyed WHERE ${keyed.join(' AND ')})`;
    return { sql, params };
  }

  async totals(filter: UsageFilter): Promise<UsageFigures> {
    const { sql, params } = this.calls(filter);
    const [row] = await this.db.$queryRawUnsafe<UsageFigures[]>(`${sql} SELECT ${FIGURES} FROM chosen`, ...params);
    return row;
  }

  /** One page of groups, the costliest first; `groups` counts them all. */
  async groups(filter: UsageFilter, by: UsageGroup, limit: number, offset: number): Promise<{ rows: UsageGroupRow[]; groups: number }> {
    const { sql, params } = this.calls(filter);
    const key = KEY[by];
    const n = params.length;
    const rows = await this.db.$queryRawUnsafe<Array<UsageGroupRow & { groups: number }>>(
      `${sql}
       SELECT ${key} AS key, ${FIGURES},
              avg(duration_nano)::float8 AS avg_ns,
              percentile_cont(0.5) WITHIN GROUP (ORDER BY duration_nano)::float8 AS p50_ns,
              percentile_cont(0.95) WITHIN GROUP (ORDER BY duration_nano)::float8 AS p95_ns,
              min(start_time) AS first_seen, max(start_time) AS last_seen,
              count(*) OVER ()::int AS groups
       FROM chosen GROUP BY ${key}
       ORDER BY cost DESC, calls DESC, ${key} NULLS LAST
       LIMIT $${n + 1} OFFSET $${n + 2}`,
      ...params,
      limit,
      offset,
    );
    const groups = rows[0]?.groups ?? (offset > 0 ? await this.groupCount(sql, params, key) : 0);
    return { rows, groups };
  }

  private async groupCount(sql: string, params: unknown[], key: string): Promise<number> {
    const [row] = await this.db.$queryRawUnsafe<Array<{ n: number }>>(
      `${sql} SELECT count(DISTINCT ${key})::int + coalesce(bool_or(${key} IS NULL)::int, 0) AS n FROM chosen`,
      ...params,
    );
    return row?.n ?? 0;
  }
}
