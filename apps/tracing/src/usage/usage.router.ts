import { tracing } from '@platform/contracts';
import type { ApiRouter } from '@platform/http';
import type { UsageService } from './usage.service';

const errors = { 400: { description: 'Invalid request' }, 401: { description: 'No valid token' }, 403: { description: 'Permission missing' } };

export function usageRoutes(api: ApiRouter, usage: UsageService): void {
  api.route({
    method: 'get',
    path: '/usage',
    summary: 'Tokens, cost and latency of model calls, grouped by model, project, user or session',
    description:
      'Model calls are spans with GenAI (`gen_ai.request.model`, `gen_ai.response.model`, `gen_ai.usage.*`) or OpenInference (`llm.*`) attributes, costed at ingestion from the model price table. ' +
      "A call's user and session are its `user.id` / `session.id`, else another span's of its trace. `from` / `to` bound the calls' start; groups come costliest first.",
    tags: ['usage'],
    access: { permission: 'traces:read' },
    query: tracing.UsageQuery,
    responses: { 200: { description: 'Totals and one page of groups', schema: tracing.UsageReport }, ...errors },
    handler: (req) => usage.report(req.valid.query),
  });
}
