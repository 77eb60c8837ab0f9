import { workers, PageQuery } from '@platform/contracts';
import type { ApiRouter } from '@platform/http';
import type { WorkersRepository } from './workers.repository';
import { workerView } from './workers.view';

/** `GET /workers` and `/workers/dead`: worker processes by their heartbeats. */
export function workerRoutes(api: ApiRouter, repository: WorkersRepository, deadAfterMs: number): void {
  api.route({
    method: 'get',
    path: '/workers',
    summary: 'Live worker processes',
    description: `Workers whose last heartbeat is more recent than WORKERS_DEAD_AFTER_MS (${deadAfterMs} ms).`,
    tags: ['workers'],
    access: { permission: 'workers:read' },
    query: PageQuery,
    responses: { 200: { description: 'A page of workers', schema: workers.WorkerPage } },
    handler: async (req) => {
      const { limit, offset } = req.valid.query;
      const { rows, total } = await repository.live(deadAfterMs, limit, offset);
      return { items: rows.map(workerView), total, limit, offset };
    },
  });
  api.route({
    method: 'get',
    path: '/workers/dead',
    summary: 'Workers that missed their heartbeats',
    description:
      'Workers that did not stop cleanly and have not heartbeat within WORKERS_DEAD_AFTER_MS; their running steps become orphans when their leases expire.',
    tags: ['workers'],
    access: { permission: 'workers:read' },
    query: PageQuery,
    responses: { 200: { description: 'A page of dead workers', schema: workers.WorkerPage } },
    handler: async (req) => {
      const { limit, offset } = req.valid.query;
      const { rows, total } = await repository.dead(deadAfterMs, limit, offset);
      return { items: rows.map(workerView), total, limit, offset };
    },
  });
}
