import { notFound } from '@platform/http';
import type { tracing } from '@platform/contracts';
import type { z } from 'zod';
import { isoNano } from '../spans/span.view';
import type { SessionRow, SessionsRepository, SessionTraceRow } from './sessions.repository';

type SessionSummary = z.infer<typeof tracing.SessionSummary>;

const money = (value: number) => Math.round(value * 1e8) / 1e8;

function summaryView(row: SessionRow): SessionSummary {
  return {
    session_id: row.session_id,
    users: (row.users ?? []).sort(),
    projects: row.projects.sort(),
    first_seen: row.first_seen.toISOString(),
    last_seen: row.last_seen.toISOString(),
    trace_count: row.trace_count,
    span_count: row.span_count,
    model_calls: row.model_calls,
    input_tokens: row.input_tokens,
    output_tokens: row.output_tokens,
    cost: money(row.cost),
    errors: row.errors,
  };
}

function traceView(row: SessionTraceRow): z.infer<typeof tracing.SessionTrace> {
  return {
    trace_id: row.trace_id,
    name: row.name,
    start_time: isoNano(row.start_unix_nano),
    end_time: isoNano(row.end_unix_nano),
    duration_ms: Number(BigInt(row.end_unix_nano) - BigInt(row.start_unix_nano)) / 1e6,
    span_count: row.span_count,
    model_calls: row.model_calls,
    models: (row.models ?? []).sort(),
    input_tokens: row.input_tokens,
    output_tokens: row.output_tokens,
    cost: money(row.cost),
    errors: row.errors,
  };
}

/** Sessions (`session.id`): the conversations of the platform's telemetry, each a list of traces. */
export class SessionsService {
  constructor(private readonly sessions: SessionsRepository) {}

  async list(query: z.infer<typeof tracing.SessionsQuery>): Promise<z.infer<typeof tracing.SessionPage>> {
    const filter = {
      project: query.project,
      userId: query.user_id,
      from: query.from ? new Date(query.from) : undefined,
      to: query.to ? new Date(query.to) : undefined,
    };
    const { ids, total } = await this.sessions.page(filter, query.limit, query.offset);
    const rows = new Map((await this.sessions.summaries(ids)).map((row) => [row.session_id, row]));
    const sessions = ids.flatMap((id) => (rows.has(id) ? [summaryView(rows.get(id)!)] : []));
    return { sessions, total, limit: query.limit, offset: query.offset };
  }

  async get(sessionId: string): Promise<z.infer<typeof tracing.Session>> {
    const [[summary], traces] = await Promise.all([this.sessions.summaries([sessionId]), this.sessions.traces(sessionId)]);
    if (!summary || traces.length === 0) throw notFound(`No session ${sessionId}`);
    return { ...summaryView(summary), traces: traces.map(traceView) };
  }
}
