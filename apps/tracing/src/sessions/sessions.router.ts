import { tracing } from '@platform/contracts';
import type { ApiRouter } from '@platform/http';
import type { SessionsService } from './sessions.service';

const READ = { permission: 'traces:read' };
const errors = { 400: { description: 'Invalid request' }, 401: { description: 'No valid token' }, 403: { description: 'Permission missing' } };

export function sessionRoutes(api: ApiRouter, sessions: SessionsService): void {
  api.route({
    method: 'get',
    path: '/sessions',
    summary: 'Sessions (`session.id`), the most recently active first, with their traces, tokens, cost and errors',
    description:
      "`project`, `user_id` (on any span of the session's traces), `from` / `to` (spans naming the session started between them); paged with `limit` and `offset`.",
    tags: ['sessions'],
    access: READ,
    query: tracing.SessionsQuery,
    responses: { 200: { description: 'A page of sessions', schema: tracing.SessionPage }, ...errors },
    handler: (req) => sessions.list(req.valid.query),
  });
  api.route({
    method: 'get',
    path: '/sessions/:session_id',
    summary: 'One session: its figures and its traces in the order they started',
    tags: ['sessions'],
    access: READ,
    params: tracing.SessionParams,
    responses: { 200: { description: 'The session', schema: tracing.Session }, ...errors, 404: { description: 'No trace names this session' } },
    handler: (req) => sessions.get(req.valid.params.session_id),
  });
}
