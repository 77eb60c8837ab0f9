import { tracing } from '@platform/contracts';
import type { ApiRouter } from '@platform/http';
import type { SpansService } from './spans.service';

const READ = { permission: 'traces:read' };
const ADMIN = { permission: 'traces:admin' };
const errors = { 400: { description: 'Invalid request' }, 401: { description: 'No valid token' }, 403: { description: 'Permission missing' } };

export function spanRoutes(api: ApiRouter, spans: SpansService): void {
  api.route({
    method: 'get',
    path: '/traces/:trace_id',
    summary: 'One trace as a tree of spans',
    tags: ['traces'],
    access: READ,
    params: tracing.TraceParams,
    responses: { 200: { description: 'The trace', schema: tracing.Trace }, ...errors, 404: { description: 'Unknown trace' } },
    handler: (req) => spans.trace(req.valid.params.trace_id),
  });
  api.route({
    method: 'delete',
    path: '/traces',
    summary: 'Delete traces older than a date, or by id',
    description: '`before` deletes every trace whose first span started before it; `trace_id` (repeatable) deletes those traces.',
    tags: ['traces'],
    access: ADMIN,
    query: tracing.DeleteTracesQuery,
    responses: { 200: { description: 'What was deleted', schema: tracing.DeleteResult }, ...errors },
    handler: (req) => spans.deleteTraces(req.valid.query),
  });
  api.route({
    method: 'get',
    path: '/projects/:project/spans',
    summary: "A project's spans, newest first",
    description: 'Filters: `from`, `to`, `name`, `status`, `kind`, `trace_id`, and `attr.<key>=<value>`; page with `limit` and `cursor` (`next_cursor`).',
    tags: ['spans'],
    access: READ,
    params: tracing.ProjectParams,
    query: tracing.SpansQuery,
    responses: { 200: { description: 'A page of spans', schema: tracing.SpanPage }, ...errors },
    handler: (req) => spans.projectSpans(req.valid.params.project, req.valid.query),
  });
  api.route({
    method: 'get',
    path: '/spans/count',
    summary: 'Span and trace counts per project',
    tags: ['spans'],
    access: READ,
    query: tracing.CountQuery,
    responses: { 200: { description: 'Counts', schema: tracing.SpanCounts }, ...errors },
    handler: (req) => spans.counts(req.valid.query),
  });
  api.route({
    method: 'get',
    path: '/stats',
    summary: 'Storage, ingest and latency statistics; model calls (tokens, cost, latency per model) between `from` and `to`',
    tags: ['spans'],
    access: READ,
    query: tracing.StatsQuery,
    responses: { 200: { description: 'Statistics', schema: tracing.Stats }, ...errors },
    handler: (req) => spans.stats(req.valid.query),
  });
}
