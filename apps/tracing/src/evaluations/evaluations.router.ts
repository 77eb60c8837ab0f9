import { tracing } from '@platform/contracts';
import type { ApiRouter } from '@platform/http';
import type { EvaluationsService } from './evaluations.service';

const READ = { permission: 'traces:read' };
const WRITE = { permission: 'traces:write' };
const ADMIN = { permission: 'traces:admin' };
const errors = { 400: { description: 'Invalid request' }, 401: { description: 'No valid token' }, 403: { description: 'Permission missing' } };

export function evaluationRoutes(api: ApiRouter, evaluations: EvaluationsService): void {
  // Fixed paths first: `status` and `active` are not evaluation ids.
  api.route({
    method: 'get',
    path: '/evaluations/status',
    summary: 'Queue and progress of the evaluation jobs',
    tags: ['evaluations'],
    access: READ,
    responses: { 200: { description: 'Status', schema: tracing.QueueStatus }, ...errors },
    handler: () => evaluations.status(),
  });
  api.route({
    method: 'get',
    path: '/evaluations/active',
    summary: 'Evaluations with examples still to score, of those the caller may read',
    tags: ['evaluations'],
    access: READ,
    responses: { 200: { description: 'Active evaluations', schema: tracing.ActiveEvaluations }, ...errors },
    handler: (req) => evaluations.active(req.auth!),
  });
  api.route({
    method: 'post',
    path: '/evaluations/pause',
    summary: 'Stop taking new examples (running ones finish)',
    tags: ['evaluations'],
    access: ADMIN,
    responses: { 200: { description: 'Status', schema: tracing.QueueStatus }, ...errors },
    handler: () => evaluations.pause(),
  });
  api.route({
    method: 'post',
    path: '/evaluations/resume',
    summary: 'Continue where the evaluations stopped',
    tags: ['evaluations'],
    access: ADMIN,
    responses: { 200: { description: 'Status', schema: tracing.QueueStatus }, ...errors },
    handler: () => evaluations.resume(),
  });
  api.route({
    method: 'get',
    path: '/evaluations',
    summary: "The evaluations the caller may read (their own and their teams'; all with traces:admin), newest first",
    tags: ['evaluations'],
    access: READ,
    query: tracing.EvaluationQuery,
    responses: { 200: { description: 'A page of evaluations', schema: tracing.EvaluationPage }, ...errors },
    handler: (req) => evaluations.list(req.auth!, req.valid.query),
  });
  api.route({
    method: 'post',
    path: '/evaluations',
    summary: 'Start an evaluation of a dataset the caller may read: one job per example; `team` shares it',
    tags: ['evaluations'],
    access: WRITE,
    body: tracing.CreateEvaluation,
    responses: { 202: { description: 'Started', schema: tracing.Evaluation }, ...errors, 404: { description: 'Unknown dataset' } },
    handler: (req) => evaluations.create(req.auth!, req.valid.body),
  });
  api.route({
    method: 'get',
    path: '/evaluations/:eval_id/results',
    summary: 'Per-example scores, output and trace id',
    tags: ['evaluations'],
    access: READ,
    params: tracing.EvaluationParams,
    query: tracing.EvaluationQuery,
    responses: { 200: { description: 'A page of results', schema: tracing.EvaluationResultPage }, ...errors, 404: { description: 'Unknown evaluation' } },
    handler: (req) => evaluations.results(req.auth!, req.valid.params.eval_id, undefined, req.valid.query),
  });
  api.route({
    method: 'get',
    path: '/evaluations/:eval_id/errors',
    summary: 'The examples that failed, with their errors',
    tags: ['evaluations'],
    access: READ,
    params: tracing.EvaluationParams,
    query: tracing.EvaluationQuery,
    responses: {
      200: { description: 'A page of failed results', schema: tracing.EvaluationResultPage },
      ...errors,
      404: { description: 'Unknown evaluation' },
    },
    handler: (req) => evaluations.results(req.auth!, req.valid.params.eval_id, 'failed', req.valid.query),
  });
  api.route({
    method: 'post',
    path: '/evaluations/:eval_id/retry',
    summary: 'Run the failed examples again (the owner, a team editor or traces:admin)',
    tags: ['evaluations'],
    access: WRITE,
    params: tracing.EvaluationParams,
    responses: { 200: { description: 'How many were queued again', schema: tracing.RetryResult }, ...errors, 404: { description: 'Unknown evaluation' } },
    handler: (req) => evaluations.retry(req.auth!, req.valid.params.eval_id),
  });
}
