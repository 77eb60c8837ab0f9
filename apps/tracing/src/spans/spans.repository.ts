import type { Pool } from 'pg';
import type { Db } from '../database';
import type { EmbeddingRow, SpanRow } from '../ingest/span-rows';

/** A stored span as read back (bigint columns as strings). */
export interface StoredSpan {
  project: string;
  trace_id: string;
  span_id: string;
  parent_span_id: string | null;
  name: string;
  kind: number;
  status_code: number;
  status_message: string | null;
  start_unix_nano: string;
  end_unix_nano: string;
  duration_nano: string;
  trace_state: string | null;
  flags: number;
  attributes: Record<string, unknown>;
  events: unknown[];
  links: unknown[];
  resource: Record<string, unknown>;
  scope: Record<string, unknown>;
  session_id: string | null;
  user_id: string | null;
  model: string | null;
  model_system: string | null;
  input_tokens: string | null;
  output_tokens: string | null;
  cost: number | null;
}

export interface SpanFilter {
  project: string;
  from?: Date;
  to?: Date;
  name?: string;
  statusCode?: number;
  kind?: number;
  traceId?: string;
  /** Attribute equality: the value as given, matched against string, int, double and bool values. */
  attributes?: Array<[string, string]>;
  /** Keyset cursor: spans strictly older than (start_unix_nano, trace_id, span_id). */
  before?: { startUnixNano: string; traceId: string; spanId: string };
}

const SPAN_COLUMNS = `project, trace_id, span_id, parent_span_id, name, kind, status_code, status_message,
  start_unix_nano::text AS start_unix_nano, end_unix_nano::text AS end_unix_nano, duration_nano::text AS duration_nano,
  trace_state, flags, attributes, events, links, resource, scope,
  session_id, user_id, model, model_system, input_tokens::text AS input_tokens, output_tokens::text AS output_tokens, cost`;

const NS_PER_MS = 1_000_000n;
const DAY_MS = 86_400_000;

/** Partition of a UTC day: spans_pYYYYMMDD. */
export function partitionName(dayStartMs: number): string {
  return `spans_p${new Date(dayStartMs).toISOString().slice(0, 10).replace(/-/g, '')}`;
}

const dayOf = (unixNano: bigint) => Math.floor(Number(unixNano / NS_PER_MS) / DAY_MS) * DAY_MS;
/** timestamptz keeps microseconds: the nanosecond columns keep the rest. */
const micros = (unixNano: bigint) => (unixNano / 1000n).toString();

function attributeCandidates(key: string, value: string): string[] {
  const candidates = [{ [key]: { stringValue: value } }];
  if (/^-?\d+$/.test(value)) candidates.push({ [key]: { intValue: value } } as never);
  const number = Number(value);
  if (value.trim() !== '' && Number.isFinite(number)) candidates.push({ [key]: { doubleValue: number } } as never);
  if (value === 'true' || value === 'false') candidates.push({ [key]: { boolValue: value === 'true' } } as never);
  return candidates.map((candidate) => JSON.stringify(candidate));
}

const INSERT_SPANS = `INSERT INTO spans (project, trace_id, span_id, parent_span_id, name, kind, status_code, status_message, start_time,
     start_unix_nano, end_unix_nano, duration_nano, trace_state, flags, attributes, events, links, resource, scope, dropped,
     session_id, user_id, model, model_system, input_tokens, output_tokens, cost)
   SELECT p, t, s, pa, n, k, sc, sm, to_timestamp((st / 1000)::double precision / 1000000), st, en, en - st, ts, f, a, e, l, r, sco, d,
          ses, usr, m, ms, it, ot, c
   FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::smallint[], $7::smallint[], $8::text[],
               $9::bigint[], $10::bigint[], $11::text[], $12::int[], $13::jsonb[], $14::jsonb[], $15::jsonb[], $16::jsonb[], $17::jsonb[], $18::jsonb[],
               $19::text[], $20::text[], $21::text[], $22::text[], $23::bigint[], $24::bigint[], $25::float8[])
     AS u(p, t, s, pa, n, k, sc, sm, st, en, ts, f, a, e, l, r, sco, d, ses, usr, m, ms, it, ot, c)
   ON CONFLICT DO NOTHING`;

const INSERT_EMBEDDINGS = `INSERT INTO embeddings (project, trace_id, span_id, position, model, text, dimensions, vector, start_time)
   SELECT p, t, s, pos, m, tx, cardinality(v::float8[]), v::float8[], to_timestamp((st / 1000)::double precision / 1000000)
   FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::text[], $6::text[], $7::text[], $8::bigint[]) AS u(p, t, s, pos, m, tx, v, st)
   ON CONFLICT DO NOTHING`;

/**
 * The only code that reads and writes spans and embeddings. Spans live in a table partitioned by
 * day; a batch is written with one INSERT ... SELECT FROM unnest(arrays) per table, inside one
 * transaction, whatever its size (one statement, a fixed number of parameters). The batch write
 * goes through `writer`, a small pg pool of its own when given: passing 18 arrays of thousands of
 * values through Prisma's raw-query path costs about twice the time of the statement itself.
 */
export class SpansRepository {
  private readonly partitions = new Set<string>();

  constructor(
    private readonly db: Db,
    private readonly writer?: Pool,
  ) {}

  /** Creates the day partitions a batch needs (idempotent, safe against another replica doing the same). */
  async ensurePartitions(startNanos: Iterable<bigint>): Promise<void> {
    const days = new Set<number>();
    for (const start of startNanos) days.add(dayOf(start));
    for (const day of days) {
      const name = partitionName(day);
      if (this.partitions.has(name)) continue;
      const from = new Date(day).toISOString();
      const to = new Date(day + DAY_MS).toISOString();
      try {
        await this.db.$executeRawUnsafe(`CREATE TABLE IF NOT EXISTS "${name}" PARTITION OF spans FOR VALUES FROM ('${from}') TO ('${to}')`);
      } catch (error) {
        // Another replica created it between IF NOT EXISTS and CREATE: it exists now.
        if (!/already exists/.test(String((error as Error).message))) throw error;
      }
      this.partitions.add(name);
    }
  }

  /** Writes spans and their embeddings in one transaction; a span already stored (a retried export) is skipped. */
  async insertBatch(spans: SpanRow[], embeddings: EmbeddingRow[]): Promise<void> {
    if (spans.length === 0) return;
    try {
      await this.writeBatch(spans, embeddings);
    } catch (error) {
      // Another replica's retention run dropped a partition this one still had in its cache.
      if (!/no partition of relation/.test(String((error as Error).message))) throw error;
      this.partitions.clear();
      await this.writeBatch(spans, embeddings);
    }
  }

  private async writeBatch(spans: SpanRow[], embeddings: EmbeddingRow[]): Promise<void> {
    await this.ensurePartitions(spans.map((span) => span.startUnixNano));
    const columns = {
      project: [] as string[],
      trace: [] as string[],
      span: [] as string[],
      parent: [] as (string | null)[],
      name: [] as string[],
      kind: [] as number[],
      status: [] as number[],
      message: [] as (string | null)[],
      start: [] as string[],
      end: [] as string[],
      state: [] as (string | null)[],
      flags: [] as number[],
      attributes: [] as string[],
      events: [] as string[],
      links: [] as string[],
      resource: [] as string[],
      scope: [] as string[],
      dropped: [] as (string | null)[],
      session: [] as (string | null)[],
      user: [] as (string | null)[],
      model: [] as (string | null)[],
      system: [] as (string | null)[],
      inputTokens: [] as (string | null)[],
      outputTokens: [] as (string | null)[],
      cost: [] as (number | null)[],
    };
    for (const row of spans) {
      columns.project.push(row.project);
      columns.trace.push(row.traceId);
      columns.span.push(row.spanId);
      columns.parent.push(row.parentSpanId);
      columns.name.push(row.name);
      columns.kind.push(row.kind);
      columns.status.push(row.statusCode);
      columns.message.push(row.statusMessage);
      columns.start.push(row.startUnixNano.toString());
      columns.end.push(row.endUnixNano.toString());
      columns.state.push(row.traceState);
      columns.flags.push(row.flags);
      columns.attributes.push(row.attributes);
      columns.events.push(row.events);
      columns.links.push(row.links);
      columns.resource.push(row.resource);
      columns.scope.push(row.scope);
      columns.dropped.push(row.dropped);
      columns.session.push(row.call.sessionId);
      columns.user.push(row.call.userId);
      columns.model.push(row.call.model);
      columns.system.push(row.call.modelSystem);
      columns.inputTokens.push(row.call.inputTokens?.toString() ?? null);
      columns.outputTokens.push(row.call.outputTokens?.toString() ?? null);
      columns.cost.push(row.call.cost);
    }
    const spanParams = [
      columns.project,
      columns.trace,
      columns.span,
      columns.parent,
      columns.name,
      columns.kind,
      columns.status,
      columns.message,
      columns.start,
      columns.end,
      columns.state,
      columns.flags,
      columns.attributes,
      columns.events,
      columns.links,
      columns.resource,
      columns.scope,
      columns.dropped,
      columns.session,
      columns.user,
      columns.model,
      columns.system,
      columns.inputTokens,
      columns.outputTokens,
      columns.cost,
    ];
    const embeddingParams = [
      embeddings.map((row) => row.project),
      embeddings.map((row) => row.traceId),
      embeddings.map((row) => row.spanId),
      embeddings.map((row) => row.position),
      embeddings.map((row) => row.model),
      embeddings.map((row) => row.text),
      embeddings.map((row) => `{${row.vector.join(',')}}`),
      embeddings.map((row) => row.startUnixNano.toString()),
    ];
    if (this.writer) {
      const client = await this.writer.connect();
      try {
        await client.query('BEGIN');
        await client.query(INSERT_SPANS, spanParams);
        if (embeddings.length > 0) await client.query(INSERT_EMBEDDINGS, embeddingParams);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
      return;
    }
    const insertSpans = this.db.$executeRawUnsafe(INSERT_SPANS, ...spanParams);
    if (embeddings.length === 0) await insertSpans;
    else await this.db.$transaction([insertSpans, this.db.$executeRawUnsafe(INSERT_EMBEDDINGS, ...embeddingParams)]);
  }

  async trace(traceId: string): Promise<StoredSpan[]> {
    return this.db.$queryRawUnsafe<StoredSpan[]>(
      `SELECT ${SPAN_COLUMNS} FROM spans WHERE trace_id = $1 ORDER BY start_unix_nano, span_id LIMIT 10000`,
      traceId,
    );
  }

  /** A project's spans newest first, keyset-paged; `limit + 1` rows tell whether there is more. */
  async page(filter: SpanFilter, limit: number): Promise<StoredSpan[]> {
    const { where, params } = this.where(filter);
    if (filter.before) {
      params.push(micros(BigInt(filter.before.startUnixNano)), filter.before.startUnixNano, filter.before.traceId, filter.before.spanId);
      const n = params.length;
      where.push(
        `start_time <= to_timestamp($${n - 3}::bigint::double precision / 1000000) AND (start_unix_nano, trace_id, span_id) < ($${n - 2}::bigint, $${n - 1}, $${n})`,
      );
    }
    params.push(limit + 1);
    return this.db.$queryRawUnsafe<StoredSpan[]>(
      `SELECT ${SPAN_COLUMNS} FROM spans WHERE ${where.join(' AND ')} ORDER BY start_time DESC, start_unix_nano DESC, trace_id DESC, span_id DESC LIMIT $${params.length}`,
      ...params,
    );
  }

  /** How many spans match (capped, so a huge project never makes paging slow). */
  async countMatching(filter: SpanFilter, cap: number): Promise<number> {
    const { where, params } = this.where(filter);
    params.push(cap);
    const [row] = await this.db.$queryRawUnsafe<Array<{ n: number }>>(
      `SELECT count(*)::int AS n FROM (SELECT 1 FROM spans WHERE ${where.join(' AND ')} LIMIT $${params.length}) x`,
      ...params,
    );
    return row.n;
  }

  private where(filter: SpanFilter): { where: string[]; params: unknown[] } {
    const params: unknown[] = [filter.project];
    const where = ['project = $1'];
    const add = (sql: (n: number) => string, value: unknown) => {
      params.push(value);
      where.push(sql(params.length));
    };
    if (filter.from) add((n) => `start_time >= $${n}::timestamptz`, filter.from.toISOString());
    if (filter.to) add((n) => `start_time < $${n}::timestamptz`, filter.to.toISOString());
    if (filter.name !== undefined) add((n) => `name = $${n}`, filter.name);
    if (filter.statusCode !== undefined) add((n) => `status_code = $${n}`, filter.statusCode);
    if (filter.kind !== undefined) add((n) => `kind = $${n}`, filter.kind);
    if (filter.traceId !== undefined) add((n) => `trace_id = $${n}`, filter.traceId);
    for (const [key, value] of filter.attributes ?? []) {
      const candidates = attributeCandidates(key, value);
      const placeholders = candidates.map((candidate) => {
        params.push(candidate);
        return `attributes @> $${params.length}::jsonb`;
      });
      where.push(`(${placeholders.join(' OR ')})`);
    }
    return { where, params };
  }

  async counts(project: string | undefined, from: Date | undefined, to: Date | undefined): Promise<Array<{ project: string; spans: number; traces: number }>> {
    const params: unknown[] = [];
    const where: string[] = ['true'];
    if (project) where.push(`project = $${params.push(project)}`);
    if (from) where.push(`start_time >= $${params.push(from.toISOString())}::timestamptz`);
    if (to) where.push(`start_time < $${params.push(to.toISOString())}::timestamptz`);
    return this.db.$queryRawUnsafe(
      `SELECT project, count(*)::float8 AS spans, count(DISTINCT trace_id)::float8 AS traces FROM spans WHERE ${where.join(' AND ')} GROUP BY project ORDER BY project`,
      ...params,
    );
  }

  async projectStats(): Promise<Array<{ project: string; spans: number; traces: number; errors: number; p50_ns: number | null; p95_ns: number | null }>> {
    return this.db.$queryRawUnsafe(
      `SELECT project, count(*)::float8 AS spans, count(DISTINCT trace_id)::float8 AS traces,
              count(*) FILTER (WHERE status_code = 2)::float8 AS errors,
              percentile_cont(0.5) WITHIN GROUP (ORDER BY duration_nano)::float8 AS p50_ns,
              percentile_cont(0.95) WITHIN GROUP (ORDER BY duration_nano)::float8 AS p95_ns
       FROM spans GROUP BY project ORDER BY project`,
    );
  }

  async storage(): Promise<{ bytes: number; partitions: number }> {
    const [row] = await this.db.$queryRawUnsafe<Array<{ bytes: number; partitions: number }>>(
      `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::float8 AS bytes, count(*)::int AS partitions
       FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
       JOIN pg_namespace n ON n.oid = p.relnamespace WHERE p.relname = 'spans' AND n.nspname = current_schema()`,
    );
    const [embeddings] = await this.db.$queryRawUnsafe<Array<{ bytes: number }>>(`SELECT pg_total_relation_size('embeddings')::float8 AS bytes`);
    return { bytes: row.bytes + embeddings.bytes, partitions: row.partitions };
  }

  /** The partitions of `spans` with their upper bounds. */
  async listPartitions(): Promise<Array<{ name: string; upper: Date | null }>> {
    const rows = await this.db.$queryRawUnsafe<Array<{ name: string; bound: string }>>(
      `SELECT c.relname::text AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
       FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
       JOIN pg_namespace n ON n.oid = p.relnamespace WHERE p.relname = 'spans' AND n.nspname = current_schema()`,
    );
    return rows.map(({ name, bound }) => {
      const match = /TO \('([^']+)'\)/.exec(bound);
      return { name, upper: match ? new Date(match[1]) : null };
    });
  }

  /** Drops a whole partition; answers how many spans it held. */
  async dropPartition(name: string): Promise<number> {
    if (!/^spans_p\d{8}$/.test(name)) throw new Error(`not a span partition: ${name}`);
    const [row] = await this.db.$queryRawUnsafe<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM "${name}"`);
    await this.db.$executeRawUnsafe(`DROP TABLE IF EXISTS "${name}"`);
    this.partitions.delete(name);
    return row.n;
  }

  async deleteSpansBefore(cutoff: Date): Promise<{ spans: number; traces: number }> {
    const [row] = await this.db.$queryRawUnsafe<Array<{ spans: number; traces: number }>>(
      `WITH gone AS (DELETE FROM spans WHERE start_time < $1::timestamptz RETURNING trace_id)
       SELECT count(*)::int AS spans, count(DISTINCT trace_id)::int AS traces FROM gone`,
      cutoff.toISOString(),
    );
    return row;
  }

  /** Deletes every span of traces that started (their earliest span) before `cutoff`. */
  async deleteTracesBefore(cutoff: Date): Promise<{ spans: number; traces: number }> {
    const [row] = await this.db.$queryRawUnsafe<Array<{ spans: number; traces: number }>>(
      `WITH old AS (SELECT DISTINCT trace_id FROM spans WHERE start_time < $1::timestamptz),
            gone AS (DELETE FROM spans WHERE trace_id IN (SELECT trace_id FROM old) RETURNING trace_id)
       SELECT count(*)::int AS spans, count(DISTINCT trace_id)::int AS traces FROM gone`,
      cutoff.toISOString(),
    );
    await this.db.$executeRawUnsafe(
      `DELETE FROM embeddings e WHERE e.start_time < $1::timestamptz AND NOT EXISTS (SELECT 1 FROM spans s WHERE s.trace_id = e.trace_id)`,
      cutoff.toISOString(),
    );
    return row;
  }

  async deleteTraces(traceIds: string[]): Promise<{ spans: number; traces: number }> {
    const [row] = await this.db.$queryRawUnsafe<Array<{ spans: number; traces: number }>>(
      `WITH gone AS (DELETE FROM spans WHERE trace_id = ANY($1::text[]) RETURNING trace_id)
       SELECT count(*)::int AS spans, count(DISTINCT trace_id)::int AS traces FROM gone`,
      traceIds,
    );
    await this.db.$executeRawUnsafe(`DELETE FROM embeddings WHERE trace_id = ANY($1::text[])`, traceIds);
    return row;
  }

  async deleteEmbeddingsBefore(cutoff: Date): Promise<number> {
    return this.db.$executeRawUnsafe(`DELETE FROM embeddings WHERE start_time < $1::timestamptz`, cutoff.toISOString());
  }

  async projects(): Promise<string[]> {
    const rows = await this.db.$queryRawUnsafe<Array<{ project: string }>>(
      // A loose index scan over (project, start_time): one probe per project, not a scan of every span.
      `WITH RECURSIVE p AS (
         (SELECT project FROM spans ORDER BY project LIMIT 1)
         UNION ALL
         SELECT (SELECT project FROM spans WHERE project > p.project ORDER BY project LIMIT 1) FROM p WHERE p.project IS NOT NULL)
       SELECT project FROM p WHERE project IS NOT NULL`,
    );
    return rows.map((row) => row.project);
  }

  /** Keeps a project's newest `cap` spans; answers how many older ones were deleted. */
  async enforceCap(project: string, cap: number): Promise<number> {
    const [row] = await this.db.$queryRawUnsafe<Array<{ n: number }>>(
      `WITH doomed AS (SELECT trace_id, span_id, start_time FROM spans WHERE project = $1
                       ORDER BY start_time DESC, start_unix_nano DESC, trace_id DESC, span_id DESC OFFSET $2),
            gone AS (DELETE FROM spans s USING doomed d WHERE s.trace_id = d.trace_id AND s.span_id = d.span_id AND s.start_time = d.start_time AND s.project = $1 RETURNING 1)
       SELECT count(*)::int AS n FROM gone`,
      project,
      cap,
    );
    return row.n;
  }

  async spanCountOf(project: string): Promise<number> {
    const [row] = await this.db.$queryRawUnsafe<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM spans WHERE project = $1`, project);
    return row.n;
  }

  /** Token counts and the root span's duration of a trace (evaluation metrics). */
  async traceUsage(traceId: string): Promise<{ tokens: number | null; rootDurationNano: string | null }> {
    const [row] = await this.db.$queryRawUnsafe<Array<{ tokens: number | null; root: string | null }>>(
      `SELECT sum(coalesce(
                (attributes->'llm.token_count.total'->>'intValue')::float8,
                (attributes->'llm.token_count.prompt'->>'intValue')::float8 + (attributes->'llm.token_count.completion'->>'intValue')::float8,
                (attributes->'gen_ai.usage.input_tokens'->>'intValue')::float8 + (attributes->'gen_ai.usage.output_tokens'->>'intValue')::float8))::float8 AS tokens,
              (array_agg(duration_nano::text ORDER BY (parent_span_id IS NULL) DESC, start_unix_nano))[1] AS root
       FROM spans WHERE trace_id = $1`,
      traceId,
    );
    return { tokens: row?.tokens ?? null, rootDurationNano: row?.root ?? null };
  }
}
