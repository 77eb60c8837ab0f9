import { tracing } from '@platform/contracts';
import type { ApiRouter } from '@platform/http';
import { z } from 'zod';
import type { DatasetsService } from './datasets.service';

const errors = { 400: { description: 'Invalid request' }, 401: { description: 'No valid token' }, 403: { description: 'Permission missing' } };

export function datasetRoutes(api: ApiRouter, datasets: DatasetsService): void {
  api.route({
    method: 'get',
    path: '/datasets',
    summary: "The datasets the caller may read (their own and their teams'; all with traces:admin), newest first (every version)",
    tags: ['datasets'],
    access: { permission: 'traces:read' },
    query: tracing.DatasetQuery,
    responses: { 200: { description: 'A page of datasets', schema: tracing.DatasetPage }, ...errors },
    handler: (req) => datasets.list(req.auth!, req.valid.query),
  });
  api.route({
    method: 'post',
    path: '/datasets',
    summary: 'Create a dataset, or the next version of one of the caller with the same name; `team` shares it with a team the caller is an editor of',
    tags: ['datasets'],
    access: { permission: 'traces:write' },
    body: tracing.CreateDataset,
    responses: { 201: { description: 'Created', schema: tracing.Dataset }, ...errors, 413: { description: 'Too large' } },
    handler: (req) => datasets.create(req.auth!, req.valid.body),
  });
  api.route({
    method: 'get',
    path: '/datasets/:dataset_id',
    summary: 'One dataset version with its examples (404 when the caller may not read it)',
    tags: ['datasets'],
    access: { permission: 'traces:read' },
    params: z.object({ dataset_id: z.uuid() }),
    responses: { 200: { description: 'The dataset', schema: tracing.Dataset }, ...errors, 404: { description: 'Unknown dataset' } },
    handler: (req) => datasets.get(req.auth!, req.valid.params.dataset_id),
  });
}
