import { PageQuery, workflowEngine } from '@platform/contracts';
import type { ApiRouter } from '@platform/http';
import { bearerToken } from '@platform/jwt';
import type { Request, RequestHandler } from 'express';
import type { ExecutionsService } from './executions.service';

/** The WebSocket base of `monitorUrl`: the public URL when configured, else the request's host. */
export const streamBaseOf = (req: Request, publicUrl?: string) =>
  (publicUrl ?? `${req.protocol}://${req.get('host') ?? 'localhost'}`).replace(/^http/, 'ws').replace(/\/$/, '');

export function executionRoutes(api: ApiRouter, executions: ExecutionsService, before: RequestHandler[], publicUrl?: string): void {
  api
    .route({
      method: 'post',
      path: '/workflows/:workflowId/execute',
      summary: 'Execute a workflow',
      description:
        "Async (default) answers 202 at once with `executionId`, `estimatedDuration` (seconds) and `monitorUrl`. `async: false` waits up to WORKFLOW_ENGINE_SYNC_TIMEOUT_MS and answers 200 with the Execution, or 202 as async when the limit passes. `inputs` is keyed by node id and merged over that node's data.",
      tags: ['executions'],
      access: { permission: 'workflows:write' },
      before,
      params: workflowEngine.WorkflowParams,
      body: workflowEngine.ExecuteRequest,
      responses: {
        202: { description: 'Accepted (async, or sync past its limit)', schema: workflowEngine.ExecutionAccepted },
        200: { description: 'Finished (sync)', schema: workflowEngine.Execution },
        404: { description: 'No such workflow' },
      },
      handler: async (req, res) => {
        const answer = await executions.execute(req.valid.params.workflowId, req.valid.body, req.auth!, streamBaseOf(req, publicUrl), bearerToken(req));
        res.status(answer.status).json(answer.body);
      },
    })
    .route({
      method: 'get',
      path: '/workflows/:workflowId/executions',
      summary: "A workflow's execution history (beyond spec 3)",
      description:
        "Its runs the caller may read (their own, their teams', every one with `workflows:admin`), newest first; batch items included (`batchId`). 404 when the caller may not read the workflow.",
      tags: ['executions'],
      access: { permission: 'workflows:read' },
      before,
      params: workflowEngine.WorkflowParams,
      query: PageQuery,
      responses: { 200: { description: 'A page of executions', schema: workflowEngine.ExecutionHistory }, 404: { description: 'No such workflow' } },
      handler: (req) => executions.ofWorkflow(req.valid.params.workflowId, req.valid.query, req.auth),
    })
    .route({
      method: 'get',
      path: '/executions/:executionId',
      summary: 'An execution',
      tags: ['executions'],
      access: { permission: 'workflows:read' },
      before,
      params: workflowEngine.ExecutionParams,
      responses: { 200: { description: 'Execution', schema: workflowEngine.Execution }, 404: { description: 'No such execution' } },
      handler: (req) => executions.get(req.valid.params.executionId, req.auth),
    })
    .document({
      method: 'get',
      path: '/executions/:executionId/stream',
      summary: 'Execution events (WebSocket)',
      description:
        'node-started, node-completed, node-retrying, node-failed, node-skipped, workflow-completed, workflow-failed. A late subscriber first receives what already happened. Bearer header or `access_token` query parameter.',
      tags: ['executions'],
      access: { permission: 'workflows:read' },
      params: workflowEngine.ExecutionParams,
      responses: { 101: { description: 'Switching protocols' } },
      upgrade: 'websocket',
    });
}
