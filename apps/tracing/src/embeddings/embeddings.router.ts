import { tracing } from '@platform/contracts';
import type { ApiRouter } from '@platform/http';
import { z } from 'zod';
import type { EmbeddingsService } from './embeddings.service';

const READ = { permission: 'traces:read' };
const errors = { 400: { description: 'Invalid request' }, 401: { description: 'No valid token' }, 403: { description: 'Permission missing' } };

export function embeddingRoutes(api: ApiRouter, embeddings: EmbeddingsService): void {
  api.route({
    method: 'get',
    path: '/embeddings/count',
    summary: 'How many embedding vectors spans carried, per project',
    tags: ['embeddings'],
    access: READ,
    query: tracing.EmbeddingFilter,
    responses: { 200: { description: 'Counts', schema: tracing.EmbeddingCount }, ...errors },
    handler: (req) => embeddings.count(req.valid.query),
  });
  api.route({
    method: 'get',
    path: '/embeddings/dimensions',
    summary: 'Embedding vector sizes per model',
    tags: ['embeddings'],
    access: READ,
    query: tracing.EmbeddingFilter,
    responses: { 200: { description: 'Sizes', schema: tracing.EmbeddingDimensions }, ...errors },
    handler: (req) => embeddings.dimensions(req.valid.query),
  });
  api.route({
    method: 'post',
    path: '/embeddings/reproject',
    summary: 'Compute a 2-D or 3-D projection (UMAP or PCA) as a job',
    description:
      'Answers 202 at once; follow `status_url` until `status` is `completed` (then it lists the points) or `failed`. The projection is the ' +
      "caller's; `team` shares it with a team the caller is an editor of.",
    tags: ['embeddings'],
    access: { permission: 'traces:write' },
    body: tracing.ReprojectRequest,
    responses: { 202: { description: 'Queued', schema: tracing.Projection }, ...errors },
    handler: (req) => embeddings.reproject(req.auth!, req.valid.body),
  });
  api.route({
    method: 'get',
    path: '/embeddings/projections/:projection_id',
    summary: 'A projection: its status and, once completed, its points (404 when the caller may not read it)',
    tags: ['embeddings'],
    access: READ,
    params: tracing.ProjectionParams,
    query: z.object({ limit: z.coerce.number().int().min(1).max(20000).default(5000) }),
    responses: { 200: { description: 'The projection', schema: tracing.Projection }, ...errors, 404: { description: 'Unknown projection' } },
    handler: (req) => embeddings.get(req.auth!, req.valid.params.projection_id, req.valid.query.limit),
  });
}
