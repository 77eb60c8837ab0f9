import { ErrorBody, gateway } from '@platform/contracts';
import type { ApiRouter } from '@platform/http';
import { caller } from '../access/caller';
import type { WorkflowsService } from './workflows.service';

const tags = ['workflows'];
const common = {
  401: { description: 'No valid token or API key', schema: ErrorBody },
  403: { description: 'Lacking the permission', schema: ErrorBody },
  429: { description: 'Rate limited', schema: ErrorBody },
};
const upstream = { 502: { description: 'The workflow engine or workers failed (named)', schema: ErrorBody } };

export function workflowRoutes(api: ApiRouter, workflows: WorkflowsService): void {
  api
    .route({
      method: 'post',
      path: '/workflows',
      summary: 'Create a flow-based (workflow engine) or chain-based (workers) workflow',
      tags,
      access: { permission: 'workflows:write' },
      body: gateway.CreateWorkflowBody,
      responses: {
        201: { description: 'Created', schema: gateway.GatewayWorkflow },
        400: { description: 'Invalid body', schema: ErrorBody },
        ...common,
        ...upstream,
      },
      handler: (req) => workflows.create(caller(req), req.valid.body),
    })
    .route({
      method: 'get',
      path: '/workflows',
      summary: "The workflows the caller may read (their own and their teams'; all with workflows:admin), by framework",
      tags,
      access: { permission: 'workflows:read' },
      query: gateway.WorkflowListQuery,
      responses: { 200: { description: 'A page of workflows', schema: gateway.WorkflowPage }, ...common },
      handler: (req) => workflows.list(caller(req), req.valid.query),
    })
    .route({
      method: 'post',
      path: '/workflows/:workflowId/execute',
      summary: 'Run a workflow on the service that holds it',
      tags,
      access: { permission: 'workflows:execute' },
      params: gateway.WorkflowParams,
      body: gateway.ExecuteWorkflowBody,
      responses: {
        200: { description: 'The run as the engine answered it', schema: gateway.WorkflowExecution },
        404: { description: 'No such workflow', schema: ErrorBody },
        ...common,
        ...upstream,
      },
      handler: (req) => workflows.execute(caller(req), req.valid.params.workflowId, req.valid.body.inputs),
    });
}
