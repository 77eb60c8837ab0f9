import { workflowEngine } from '@platform/contracts';
import type { ApiRouter } from '@platform/http';
import type { RequestHandler } from 'express';
import type { WorkflowsService } from './workflows.service';

export function workflowRoutes(api: ApiRouter, workflows: WorkflowsService, before: RequestHandler[]): void {
  api
    .route({
      method: 'get',
      path: '/workflows/catalog',
      summary: 'The catalog of stored workflows',
      description:
        "Only the workflows the caller may read: their own, their teams', or every one with `workflows:admin`. `estimatedDuration` (seconds) is the mean of the workflow's completed runs, or its critical path of typical component times before it has run. `tags` adds the component groups used.",
      tags: ['workflows'],
      access: { permission: 'workflows:read' },
      before,
      query: workflowEngine.CatalogQuery,
      responses: { 200: { description: 'Catalog', schema: workflowEngine.CatalogResponse } },
      handler: (req) => workflows.catalog(req.valid.query, req.auth),
    })
    .route({
      method: 'get',
      path: '/workflows/templates',
      summary: 'Templates shipped with the service',
      tags: ['workflows'],
      access: { permission: 'workflows:read' },
      before,
      responses: { 200: { description: 'Templates with their usage counts', schema: workflowEngine.TemplatesResponse } },
      handler: () => workflows.templates(),
    })
    .route({
      method: 'get',
      path: '/workflows/:workflowId',
      summary: 'A workflow with its flow (beyond spec 3)',
      description: 'What an editor opens: the stored flow (nodes with their positions and data, edges). 404 when the caller may not read it.',
      tags: ['workflows'],
      access: { permission: 'workflows:read' },
      before,
      params: workflowEngine.WorkflowParams,
      responses: { 200: { description: 'The workflow', schema: workflowEngine.WorkflowDetail }, 404: { description: 'No such workflow' } },
      handler: (req) => workflows.detail(req.valid.params.workflowId, req.auth),
    })
    .route({
      method: 'post',
      path: '/workflows',
      summary: 'Create a workflow',
      description:
        'The flow is validated before it is stored; each issue names the node and the field (`details.issues[].nodeId`, `path`). Give `templateId` to start from a shipped template. The caller owns it; `team` shares it with a team the caller is an editor of (403 otherwise).',
      tags: ['workflows'],
      access: { permission: 'workflows:write' },
      before,
      body: workflowEngine.CreateWorkflowRequest,
      responses: { 201: { description: 'Created', schema: workflowEngine.WorkflowCreated }, 400: { description: 'Invalid flow' } },
      handler: (req) => workflows.create(req.valid.body, req.auth!),
    });
}
