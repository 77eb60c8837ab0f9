import { badRequest, notFound } from '@platform/http';
import type { tracing } from '@platform/contracts';
import type { z } from 'zod';
import type { IngestBuffer } from '../ingest/ingest-buffer';
import type { IngestService } from '../ingest/ingest.service';
import type { UsageService } from '../usage/usage.service';
import { KINDS, spanTree, spanView, STATUSES } from './span.view';
import type { SpanFilter, SpansRepository } from './spans.repository';

const TOTAL_CAP = 10_000;

function encodeCursor(span: { start_unix_nano: string; trace_id: string; span_id: string }): string {
  return Buffer.from(`${span.start_unix_nano}:${span.trace_id}:${span.span_id}`).toString('base64url');
}

function decodeCursor(cursor: string): SpanFilter['before'] {
  const match = /^(\d{1,19}):([0-9a-f]{32}):([0-9a-f]{16})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) throw badRequest('The cursor is not valid', { issues: [{ path: 'query.cursor', message: 'not a cursor of this endpoint', code: 'custom' }] });
  return { startUnixNano: match[1], traceId: match[2], spanId: match[3] };
}

/** Queries over stored spans: traces as trees, a project's spans page by page, counts and statistics. */
export class SpansService {
  constructor(
    private readonly spans: SpansRepository,
    private readonly buffer: IngestBuffer,
    private readonly ingest: IngestService,
    private readonly usage: UsageService,
  ) {}

  async trace(traceId: string): Promise<z.infer<typeof tracing.Trace>> {
    const rows = await this.spans.trace(traceId);
    if (rows.length === 0) throw notFound(`No trace ${traceId}`);
    const spans = rows.map(spanView);
    let start = BigInt(rows[0].start_unix_nano);
    let end = BigInt(rows[0].end_unix_nano);
    for (const row of rows) {
      if (BigInt(row.start_unix_nano) < start) start = BigInt(row.start_unix_nano);
      if (BigInt(row.end_unix_nano) > end) end = BigInt(row.end_unix_nano);
    }
    const tree = spanTree(spans);
    const root = tree.find((node) => node.parent_span_id === null) ?? tree[0];
    const { children: _children, ...rootSpan } = root;
    return {
      trace_id: traceId,
      projects: [...new Set(spans.map((span) => span.project))].sort(),
      span_count: spans.length,
      start_time: spans.find((span) => BigInt(span.start_time_unix_nano) === start)!.start_time,
      end_time: spans.find((span) => BigInt(span.end_time_unix_nano) === end)!.end_time,
      duration_ms: Number(end - start) / 1e6,
      root_span: rootSpan,
      spans: tree,
    };
  }

  async projectSpans(project: string, query: z.infer<typeof tracing.SpansQuery>): Promise<z.infer<typeof tracing.SpanPage>> {
    const attributes: Array<[string, string]> = [];
    for (const [key, value] of Object.entries(query)) {
      if (!key.startsWith('attr.')) continue;
      const name = key.slice(5);
      if (!name || name.length > 256 || typeof value !== 'string' || value.length > 1024) {
        throw badRequest('Attribute filters are attr.<key>=<value> with one string value', {
          issues: [{ path: `query.${key}`, message: 'one value of at most 1024 characters', code: 'custom' }],
        });
      }
      attributes.push([name, value]);
    }
    if (attributes.length > 10) throw badRequest('At most 10 attribute filters');
    const filter: SpanFilter = {
      project,
      from: query.from ? new Date(query.from) : undefined,
      to: query.to ? new Date(query.to) : undefined,
      name: query.name,
      statusCode: query.status ? STATUSES.indexOf(query.status) : undefined,
      kind: query.kind ? KINDS.indexOf(query.kind) : undefined,
      traceId: query.trace_id,
      attributes,
    };
    const before = query.cursor ? decodeCursor(query.cursor) : undefined;
    const [rows, total] = await Promise.all([this.spans.page({ ...filter, before }, query.limit), this.spans.countMatching(filter, TOTAL_CAP)]);
    const more = rows.length > query.limit;
    const page = rows.slice(0, query.limit);
    return { spans: page.map(spanView), next_cursor: more ? encodeCursor(page[page.length - 1]) : null, total };
  }

  async counts(query: z.infer<typeof tracing.CountQuery>): Promise<z.infer<typeof tracing.SpanCounts>> {
    const projects = await this.spans.counts(query.project, query.from ? new Date(query.from) : undefined, query.to ? new Date(query.to) : undefined);
    return { total: projects.reduce((sum, row) => sum + row.spans, 0), from: query.from ?? null, to: query.to ?? null, projects };
  }

  async stats(query: z.infer<typeof tracing.StatsQuery>): Promise<z.infer<typeof tracing.Stats>> {
    const [projects, storage, modelCalls] = await Promise.all([this.spans.projectStats(), this.spans.storage(), this.usage.statsSection(query)]);
    return {
      spans: projects.reduce((sum, row) => sum + row.spans, 0),
      traces: projects.reduce((sum, row) => sum + row.traces, 0),
      projects: projects.length,
      bytes_on_disk: storage.bytes,
      partitions: storage.partitions,
      ingest: {
        spans_per_second: Math.round(this.buffer.rate() * 100) / 100,
        accepted_spans: this.ingest.counters.accepted,
        rejected_spans: this.ingest.counters.rejected,
        unauthenticated_requests: this.ingest.counters.unauthenticated,
        buffer_depth: this.buffer.depth,
        buffer_capacity: this.buffer.capacity,
      },
      per_project: projects.map((row) => ({
        project: row.project,
        spans: row.spans,
        traces: row.traces,
        error_rate: row.spans > 0 ? row.errors / row.spans : 0,
        p50_ms: row.p50_ns === null ? null : row.p50_ns / 1e6,
        p95_ms: row.p95_ns === null ? null : row.p95_ns / 1e6,
      })),
      model_calls: modelCalls,
    };
  }

  async deleteTraces(query: z.infer<typeof tracing.DeleteTracesQuery>): Promise<z.infer<typeof tracing.DeleteResult>> {
    await this.buffer.flush();
    const result = query.before ? await this.spans.deleteTracesBefore(new Date(query.before)) : await this.spans.deleteTraces([query.trace_id!].flat());
    return { traces_deleted: result.traces, spans_deleted: result.spans };
  }
}
