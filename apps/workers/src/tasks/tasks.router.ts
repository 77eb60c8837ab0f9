import { workers } from '@platform/contracts';
import type { ApiRouter } from '@platform/http';
import type { TasksService } from './tasks.service';

/** Tasks (the steps of runs): statistics, slow tasks, single retries and per-type timeouts. */
export function taskRoutes(api: ApiRouter, service: TasksService): void {
  api.route({
    method: 'get',
    path: '/tasks/stats',
    summary: 'Task statistics per type',
    description:
      "Per task type: step counts by state, p50 and p95 duration of the completed attempts started in the last day, throughput over the last minute, and the type's timeout.",
    tags: ['tasks'],
    access: { permission: 'workers:read' },
    responses: { 200: { description: 'Statistics', schema: workers.TaskStats } },
    handler: () => service.stats(),
  });
  api.route({
    method: 'get',
    path: '/tasks/slow',
    summary: 'Tasks slower than a threshold',
    description:
      '`threshold` in milliseconds (default 1000): finished tasks that took longer and running ones that have run longer, slowest first, of the runs the caller may read (`workflow_id`: of that run only).',
    tags: ['tasks'],
    access: { permission: 'workers:read' },
    query: workers.SlowQuery,
    responses: { 200: { description: 'A page of slow tasks', schema: workers.SlowPage } },
    handler: (req) => service.slow(req.valid.query.threshold, req.valid.query.workflow_id, req.auth!, req.valid.query.limit, req.valid.query.offset),
  });
  api.route({
    method: 'post',
    path: '/tasks/:task_id/retry',
    summary: 'Retry one failed or cancelled task',
    description:
      "`timeout` (seconds) applies to this task's next attempts. 409 unless the task failed or was cancelled and its dependencies completed. The steps it blocked run after it; an ended run runs again.",
    tags: ['tasks'],
    access: { permission: 'workflows:write' },
    params: workers.TaskParams,
    query: workers.TaskRetryQuery,
    responses: {
      202: { description: 'Queued', schema: workers.TaskRetried },
      403: { description: "Only a viewer of the run's team" },
      404: { description: 'No such task' },
      409: { description: 'Not retryable' },
    },
    handler: (req) => service.retry(req.valid.params.task_id, req.valid.query.timeout, req.auth!),
  });
  api.route({
    method: 'patch',
    path: '/task-types/:type',
    summary: "Set a task type's timeout",
    description: "`timeout` in seconds, for attempts that start afterwards; a step's own `timeout` still wins.",
    tags: ['tasks'],
    access: { permission: 'workers:admin' },
    params: workers.TaskTypeParams,
    body: workers.TaskTypeBody,
    responses: { 200: { description: 'The setting', schema: workers.TaskTypeSetting } },
    handler: (req) => service.setTimeout(req.valid.params.type, req.valid.body.timeout),
  });
}
