import { tracing } from '@platform/contracts';
import type { ApiRouter } from '@platform/http';
import type { IngestBuffer } from '../ingest/ingest-buffer';
import type { RetentionService } from './retention.service';

const ADMIN = { permission: 'traces:admin' };
const errors = { 400: { description: 'Invalid request' }, 401: { description: 'No valid token' }, 403: { description: 'Permission missing' } };

export function configRoutes(api: ApiRouter, retention: RetentionService, buffer: IngestBuffer): void {
  api.route({
    method: 'get',
    path: '/config',
    summary: 'Retention settings',
    tags: ['config'],
    access: ADMIN,
    responses: { 200: { description: 'Settings', schema: tracing.RetentionConfig }, ...errors },
    handler: async () => retention.view(await retention.settings(true)),
  });
  api.route({
    method: 'put',
    path: '/config',
    summary: 'Change retention: days kept, and a span cap for every project or for named ones',
    tags: ['config'],
    access: ADMIN,
    body: tracing.RetentionConfigUpdate,
    responses: { 200: { description: 'Settings', schema: tracing.RetentionConfig }, ...errors },
    handler: async (req) => retention.view(await retention.update(req.valid.body)),
  });
  api.route({
    method: 'post',
    path: '/gc',
    summary: 'Run retention now',
    tags: ['config'],
    access: ADMIN,
    responses: { 200: { description: 'What was freed', schema: tracing.GcResult }, ...errors },
    handler: () => retention.run(),
  });
  api.route({
    method: 'post',
    path: '/flush',
    summary: 'Commit every buffered span',
    tags: ['config'],
    access: ADMIN,
    responses: { 200: { description: 'Flushed', schema: tracing.FlushResult }, ...errors },
    handler: async () => ({ flushed_spans: await buffer.flush(), buffer_depth: buffer.depth }),
  });
}
