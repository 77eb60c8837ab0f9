import { workflowEngine } from '@platform/contracts';
import type { ApiRouter } from '@platform/http';
import { bearerToken } from '@platform/jwt';
import type { RequestHandler } from 'express';
import { streamBaseOf } from '../executions/executions.router';
import type { BatchesService } from './batches.service';

export function batchRoutes(api: ApiRouter, batches: BatchesService, before: RequestHandler[], publicUrl?: string): void {
  api
    .route({
      method: 'post',
      path: '/workflows/:workflowId/batch',
      summary: 'Execute a workflow once per input',
      description:
        'At most `concurrency` items run at once; `continue` keeps going past failing items, `stop` starts no new item after one failed. Progress on `monitorUrl` and to `progressCallback` (signed).',
      tags: ['batches'],
      access: { permission: 'workflows:write' },
      before,
      params: workflowEngine.WorkflowParams,
      body: workflowEngine.BatchRequest,
      responses: { 202: { description: 'Accepted', schema: workflowEngine.Batch }, 404: { description: 'No such workflow' } },
      handler: (req) => batches.create(req.valid.params.workflowId, req.valid.body, req.auth!, streamBaseOf(req, publicUrl), bearerToken(req)),
    })
    .route({
      method: 'get',
      path: '/batches/:batchId',
      summary: 'A batch and its progress (beyond spec 3)',
      tags: ['batches'],
      access: { permission: 'workflows:read' },
      before,
      params: workflowEngine.BatchParams,
      responses: { 200: { description: 'Batch', schema: workflowEngine.Batch }, 404: { description: 'No such batch' } },
      handler: (req) => batches.get(req.valid.params.batchId, req.auth, streamBaseOf(req, publicUrl)),
    })
    .document({
      method: 'get',
      path: '/batches/:batchId/stream',
      summary: 'Batch progress (WebSocket)',
      description: 'batch-progress after each item, batch-completed at the end; a late subscriber first receives the current progress.',
      tags: ['batches'],
      access: { permission: 'workflows:read' },
      params: workflowEngine.BatchParams,
      responses: { 101: { description: 'Switching protocols' } },
      upgrade: 'websocket',
    });
}
