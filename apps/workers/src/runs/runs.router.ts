import { PageQuery, workers } from '@platform/contracts';
import type { ApiRouter } from '@platform/http';
import type { RunsService } from './runs.service';

/** Runs: listings, orphans, retry, cancel, graph and trace. */
export function runRoutes(api: ApiRouter, service: RunsService): void {
  api.route({
    method: 'get',
    path: '/workflows/running',
    summary: 'Runs in progress',
    tags: ['runs'],
    access: { permission: 'workflows:read' },
    query: PageQuery,
    responses: { 200: { description: 'A page of running runs, newest first', schema: workers.RunPage } },
    handler: (req) => service.running(req.auth!, req.valid.query.limit, req.valid.query.offset),
  });
  api.route({
    method: 'get',
    path: '/workflows/orphaned',
    summary: 'Runs with orphaned steps',
    description: 'Runs holding a running step whose lease expired: its worker died or lost Postgres.',
    tags: ['runs'],
    access: { permission: 'workflows:read' },
    query: PageQuery,
    responses: { 200: { description: 'A page of runs with their orphaned steps', schema: workers.OrphanedPage } },
    handler: (req) => service.orphaned(req.auth!, req.valid.query.limit, req.valid.query.offset),
  });
  api.route({
    method: 'post',
    path: '/workflows/recover-orphaned',
    summary: 'Queue orphaned steps again',
    description:
      'Each orphaned step of the runs the caller may change (every run for `workers:admin`) gets a new attempt (the old one is recorded as lost); the periodic reaper does the same on its own.',
    tags: ['runs'],
    access: { permission: 'workflows:admin' },
    responses: { 200: { description: 'The recovered steps', schema: workers.RecoverResult } },
    handler: (req) => service.recoverOrphaned(req.auth!),
  });
  api.route({
    method: 'post',
    path: '/workflows/:workflow_id/retry',
    summary: 'Retry a failed or cancelled run',
    description: 'Re-runs the failed, cancelled and blocked steps; completed steps keep their outputs. 409 unless the run failed or was cancelled.',
    tags: ['runs'],
    access: { permission: 'workflows:write' },
    params: workers.WorkflowIdParams,
    responses: {
      202: { description: 'Running again', schema: workers.RunSummary },
      403: { description: "Only a viewer of the run's team" },
      404: { description: 'No such run' },
      409: { description: 'Not failed or cancelled' },
    },
    handler: (req) => service.retry(req.valid.params.workflow_id, req.auth!),
  });
  api.route({
    method: 'post',
    path: '/workflows/:workflow_id/cancel',
    summary: 'Cancel a run',
    description: 'Running steps are aborted (their HTTP requests too, in whichever worker process) and nothing more starts. 409 when the run already ended.',
    tags: ['runs'],
    access: { permission: 'workflows:write' },
    params: workers.WorkflowIdParams,
    responses: {
      200: { description: 'Cancelled', schema: workers.RunSummary },
      403: { description: "Only a viewer of the run's team" },
      404: { description: 'No such run' },
      409: { description: 'Already ended' },
    },
    handler: (req) => service.cancel(req.valid.params.workflow_id, req.auth!),
  });
  api.route({
    method: 'get',
    path: '/workflows/:workflow_id/dag',
    summary: 'The run as a graph',
    tags: ['runs'],
    access: { permission: 'workflows:read' },
    params: workers.WorkflowIdParams,
    responses: { 200: { description: 'Nodes with their states, and edges', schema: workers.Dag }, 404: { description: 'No such run' } },
    handler: (req) => service.dag(req.valid.params.workflow_id, req.auth!),
  });
  api.route({
    method: 'get',
    path: '/workflows/:workflow_id/trace',
    summary: "The run's timeline and trace id",
    description: 'Every attempt of every step in start order (start, end, worker, error), and the OpenTelemetry trace id of the request that started the run.',
    tags: ['runs'],
    access: { permission: 'workflows:read' },
    params: workers.WorkflowIdParams,
    responses: { 200: { description: 'The timeline', schema: workers.Trace }, 404: { description: 'No such run' } },
    handler: (req) => service.trace(req.valid.params.workflow_id, req.auth!),
  });
}
