import { PageQuery } from '@platform/contracts';
import type { Job, Queue } from 'bullmq';
import { z } from 'zod';
import { conflict, notFound, type ApiRouter } from '@platform/http';

const QueueCounts = z.object({ waiting: z.number(), active: z.number(), delayed: z.number(), failed: z.number(), completed: z.number() });
const QueueSummary = z.object({ name: z.string(), counts: QueueCounts });
const FailedJob = z.object({
  id: z.string(),
  name: z.string(),
  failedReason: z.string(),
  attemptsMade: z.number().int(),
  createdAt: z.string(),
  failedAt: z.string().nullable(),
  data: z.unknown(),
});
const QueueParams = z.object({ queue: z.string().min(1).max(200) });
const JobParams = QueueParams.extend({ jobId: z.string().min(1).max(200) });

function failedJob(job: Job) {
  return {
    id: String(job.id),
    name: job.name,
    failedReason: job.failedReason ?? '',
    attemptsMade: job.attemptsMade,
    createdAt: new Date(job.timestamp).toISOString(),
    failedAt: job.finishedOn ? new Date(job.finishedOn).toISOString() : null,
    data: job.data,
  };
}

/**
 * The dead letters of a service's queues (DESIGN.md, Queues): jobs that ran out of retries stay
 * in BullMQ's failed set, and an operator lists them and sends one back to be tried again.
 */
export function deadLetterRoutes(api: ApiRouter, queues: readonly Queue[], permission: string): ApiRouter {
  const byName = new Map(queues.map((queue) => [queue.name, queue]));
  const find = (name: string) => {
    const queue = byName.get(name);
    if (!queue) throw notFound(`No queue named ${name}`, { queues: [...byName.keys()] });
    return queue;
  };
  const tags = ['operations'];
  return api
    .route({
      method: 'get',
      path: '/admin/queues',
      summary: "The service's queues and their job counts",
      tags,
      access: { permission },
      responses: { 200: { description: 'Queues', schema: z.object({ queues: z.array(QueueSummary) }) } },
      handler: async () => ({
        queues: await Promise.all(
          queues.map(async (queue) => ({
            name: queue.name,
            counts: QueueCounts.parse({
              waiting: 0,
              active: 0,
              delayed: 0,
              failed: 0,
              completed: 0,
              ...(await queue.getJobCounts('waiting', 'active', 'delayed', 'failed', 'completed')),
            }),
          })),
        ),
      }),
    })
    .route({
      method: 'get',
      path: '/admin/queues/:queue/failed',
      summary: 'Jobs of a queue that failed after their last retry (the dead letters), newest first',
      tags,
      access: { permission },
      params: QueueParams,
      query: PageQuery,
      responses: {
        200: {
          description: 'A page of failed jobs',
          schema: z.object({ jobs: z.array(FailedJob), total: z.number().int(), limit: z.number().int(), offset: z.number().int() }),
        },
        404: { description: 'No such queue' },
      },
      handler: async (req) => {
        const queue = find(req.valid.params.queue);
        const { limit, offset } = req.valid.query;
        const [jobs, total] = await Promise.all([queue.getFailed(offset, offset + limit - 1), queue.getFailedCount()]);
        return { jobs: jobs.map(failedJob), total, limit, offset };
      },
    })
    .route({
      method: 'post',
      path: '/admin/queues/:queue/failed/:jobId/retry',
      summary: 'Send a failed job back to be processed again',
      tags,
      access: { permission },
      params: JobParams,
      responses: {
        202: { description: 'Queued again', schema: z.object({ id: z.string(), queue: z.string(), retried: z.literal(true) }) },
        404: { description: 'No such queue or job' },
        409: { description: 'The job has not failed' },
      },
      handler: async (req) => {
        const queue = find(req.valid.params.queue);
        const job = await queue.getJob(req.valid.params.jobId);
        if (!job) throw notFound(`No job ${req.valid.params.jobId} in ${queue.name}`);
        if (!(await job.isFailed())) throw conflict('Only a failed job can be retried', { state: await job.getState() });
        await job.retry('failed');
        return { id: String(job.id), queue: queue.name, retried: true as const };
      },
    });
}
