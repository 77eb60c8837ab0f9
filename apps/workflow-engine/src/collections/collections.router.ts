import { workflowEngine } from '@platform/contracts';
import type { ApiRouter } from '@platform/http';
import type { RequestHandler } from 'express';
import type { CollectionsService } from './collections.service';

export function collectionRoutes(api: ApiRouter, collections: CollectionsService, before: RequestHandler[]): void {
  api.route({
    method: 'put',
    path: '/collections/:collection/documents',
    summary: 'Add or replace documents of a vector collection (beyond spec 3)',
    description:
      "What VectorSearch nodes search. Documents without a vector are embedded through local-models (`model`, or the default embedding model). A new collection is the caller's (`team` shares it); an existing one takes documents from its owner, its team's editors and `workflows:admin` only, and a run searches only collections its starter may read.",
    tags: ['collections'],
    access: { permission: 'workflows:write' },
    before,
    params: workflowEngine.CollectionParams,
    body: workflowEngine.UpsertDocumentsRequest,
    responses: { 200: { description: 'Stored', schema: workflowEngine.UpsertDocumentsResponse } },
    handler: (req) => collections.upsert(req.valid.params.collection, req.valid.body, req.auth!, req.headers.authorization?.replace(/^Bearer\s+/i, '')),
  });
}
