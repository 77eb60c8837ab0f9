import { ErrorBody, master } from '@platform/contracts';
import type { ApiRouter } from '@platform/http';
import type { RequestHandler } from 'express';
import { caller, permission } from '../access';
import type { OrchestrationService } from './orchestration.service';

export function orchestrationRoutes(api: ApiRouter, orchestration: OrchestrationService, limit: RequestHandler[]): void {
  api
    .route({
      method: 'get',
      path: '/orchestration/workflows',
      summary: 'List multi-agent workflows',
      description:
        "Only the workflows the caller may read (their own and their teams'; all with orchestration:admin). Newest first; q filters by name; limit (default 50, max 500) and offset.",
      tags: ['orchestration'],
      access: permission.orchestrationRead,
      before: limit,
      query: master.WorkflowListQuery,
      responses: { 200: { description: 'A page of workflows', schema: master.WorkflowPage } },
      handler: (req) => orchestration.list(caller(req), req.valid.query),
    })
    .route({
      method: 'post',
      path: '/orchestration/workflows',
      summary: 'Create a multi-agent workflow',
      description:
        'Steps name registered agents, depend on other steps (a DAG) and take inputs templated from the workflow inputs ({{input.x}}) or ' +
        "an upstream step's output ({{steps.<id>.output.x}}). Refused (400, details.issues) when a step's agent lacks a capability the step " +
        'requires, or requires (security.capabilities.required) one the workflow is not granted. A step may use only an agent the caller may read. ' +
        'The caller owns the workflow; `team` shares it with a team the caller is an editor of.',
      tags: ['orchestration'],
      access: permission.orchestrationWrite,
      before: limit,
      body: master.WorkflowCreateBody,
      responses: {
        201: { description: 'Created', schema: master.Workflow },
        400: { description: 'Invalid workflow', schema: ErrorBody },
        403: { description: 'The caller is not an editor of the team', schema: ErrorBody },
      },
      handler: (req) => orchestration.create(caller(req), req.valid.body),
    })
    .route({
      method: 'post',
      path: '/orchestration/workflows/:workflowId/execute',
      summary: 'Execute a workflow on the workers service',
      description:
        "Answers 202 with the execution once the workers service accepted the run, created there in the caller's name. 503 when workers is unreachable. " +
        "Only the workflow's owner, an editor of its team or orchestration:admin may run it (403 for a reader).",
      tags: ['orchestration'],
      access: permission.orchestrationWrite,
      before: limit,
      params: master.WorkflowParams,
      body: master.ExecuteBody,
      responses: {
        202: { description: 'Accepted', schema: master.Execution },
        400: { description: 'Missing inputs', schema: ErrorBody },
        403: { description: 'The caller may read the workflow but not run it', schema: ErrorBody },
        404: { description: 'No such workflow', schema: ErrorBody },
        409: { description: "A step's agent no longer exists", schema: ErrorBody },
        502: { description: 'Workers failed', schema: ErrorBody },
        503: { description: 'Workers unreachable', schema: ErrorBody },
      },
      handler: (req) => orchestration.execute(caller(req), req.valid.params.workflowId, req.valid.body.inputs),
    })
    .route({
      method: 'get',
      path: '/orchestration/executions/:executionId',
      summary: 'An execution with the state of each step',
      description:
        "Mirrored from the workers service: refreshed from it on read while the execution is not finished. Read by whoever ran it, the workflow's team and orchestration:admin.",
      tags: ['orchestration'],
      access: permission.orchestrationRead,
      before: limit,
      params: master.ExecutionParams,
      responses: { 200: { description: 'The execution', schema: master.Execution }, 404: { description: 'No such execution', schema: ErrorBody } },
      handler: (req) => orchestration.execution(caller(req), req.valid.params.executionId),
    });
}
