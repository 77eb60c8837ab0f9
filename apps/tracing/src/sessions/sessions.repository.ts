import type { Db } from '../database';

export interface SessionFilter {
  project?: string;
  userId?: string;
  from?: Date;
  to?: Date;
}

export interface SessionRow {
  session_id: string;
  users: string[] | null;
  projects: string[];
  first_seen: Date;
  last_seen: Date;
  trace_count: number;
  span_count: number;
  model_calls: number;
  input_tokens: number;
  output_tokens: number;
  cost: number;
  errors: number;
}

export interface SessionTraceRow {
  trace_id: string;
  name: string;
  start_unix_nano: string;
  end_unix_nano: string;
  span_count: number;
  model_calls: number;
  models: string[] | null;
  input_tokens: number;
  output_tokens: number;
  cost: number;
  errors: number;
}

/** Most traces a session lists. */
export const SESSION_TRACES = 1000;

/**
 * Sessions: the traces that carry a `session.id` on any of their spans. Figures cover every span of
 * those traces (a model call deep in a trace counts for the session its root names).
 */
export class SessionsRepository {
  constructor(private readonly db: Db) {}

  /** One page of session ids, the most recently active first; `total` counts them all. */
  async page(filter: SessionFilter, limit: number, offset: number): Promise<{ ids: string[]; total: number }> {
    const params: unknown[] = [];
    const where = ['session_id IS NOT NULL'];
    if (filter.from) where.push(`start_time >= $${params.push(filter.from.toISOString())}::timestamptz`);
    if (filter.to) where.push(`start_time < $${params.push(filter.to.toISOString())}::timestamptz`);
    if (filter.project) where.push(`project = $${params.push(filter.project)}`);
    // The user may be named on another span of the session's traces than the one naming the session.
    if (filter.userId) where.push(`trace_id IN (SELECT trace_id FROM spans WHERE user_id = $${params.push(filter.userId)})`);
    const n = params.length;
    const rows = await this.db.$queryRawUnsafe<Array<{ session_id: string; total: number }>>(
      `SELECT session_id, count(*) OVER ()::int AS total FROM spans WHERE ${where.join(' AND ')}
       GROUP BY session_id ORDER BY max(start_time) DESC, session_id LIMIT $${n + 1} OFFSET $${n + 2}`,
      ...params,
      limit,
      offset,
    );
    let total = rows[0]?.total;
    if (total === undefined) {
      const [row] = await this.db.$queryRawUnsafe<Array<{ n: number }>>(
        `SELECT count(DISTINCT session_id)::int AS n FROM spans WHERE ${where.join(' AND ')}`,
        ...params,
      );
      total = row.n;
    }
    return { ids: rows.map((row) => row.session_id), total };
  }

  /** The figures of these sessions, over every span of their traces. */
  async summaries(ids: string[]): Promise<SessionRow[]> {
    if (ids.length === 0) return [];
    return this.db.$queryRawUnsafe<SessionRow[]>(
      `WITH st AS (SELECT DISTINCT session_id, trace_id FROM spans WHERE session_id = ANY($1::text[]))
       SELECT st.session_id,
              array_agg(DISTINCT s.user_id) FILTER (WHERE s.user_id IS NOT NULL) AS users,
              array_agg(DISTINCT s.project) AS projects,
              min(s.start_time) AS first_seen, max(s.start_time) AS last_seen,
              count(DISTINCT s.trace_id)::float8 AS trace_count, count(*)::float8 AS span_count,
              count(s.model)::float8 AS model_calls,
              coalesce(sum(s.input_tokens), 0)::float8 AS input_tokens, coalesce(sum(s.output_tokens), 0)::float8 AS output_tokens,
              coalesce(sum(s.cost), 0)::float8 AS cost, count(*) FILTER (WHERE s.status_code = 2)::float8 AS errors
       FROM st JOIN spans s ON s.trace_id = st.trace_id
       GROUP BY st.session_id`,
      ids,
    );
  }

  /** A session's traces in the order they started. */
  async traces(sessionId: string): Promise<SessionTraceRow[]> {
    return this.db.$queryRawUnsafe<SessionTraceRow[]>(
      `SELECT s.trace_id,
              (array_agg(s.name ORDER BY (s.parent_span_id IS NULL) DESC, s.start_unix_nano))[1] AS name,
              min(s.start_unix_nano)::text AS start_unix_nano, max(s.end_unix_nano)::text AS end_unix_nano,
              count(*)::float8 AS span_count, count(s.model)::float8 AS model_calls,
              array_agg(DISTINCT s.model) FILTER (WHERE s.model IS NOT NULL) AS models,
              coalesce(sum(s.input_tokens), 0)::float8 AS input_tokens, coalesce(sum(s.output_tokens), 0)::float8 AS output_tokens,
              coalesce(sum(s.cost), 0)::float8 AS cost, count(*) FILTER (WHERE s.status_code = 2)::float8 AS errors
       FROM spans s WHERE s.trace_id IN (SELECT trace_id FROM spans WHERE session_id = $1)
       GROUP BY s.trace_id ORDER BY min(s.start_unix_nano), s.trace_id LIMIT $2`,
      sessionId,
      SESSION_TRACES,
    );
  }
}
