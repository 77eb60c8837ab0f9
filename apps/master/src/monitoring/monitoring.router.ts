import { master } from '@platform/contracts';
import type { ApiRouter } from '@platform/http';
import type { RequestHandler } from 'express';
import { permission } from '../access';
import type { MonitoringService } from './monitoring.service';

export function monitoringRoutes(api: ApiRouter, monitoring: MonitoringService, limit: RequestHandler[]): void {
  api
    .route({
      method: 'get',
      path: '/monitoring/metrics',
      summary: 'Platform figures',
      description:
        'Agents by status, executions by state, certifications by status, federation peers, queue depths and the health of each dependency (database, cache, registry, workers).',
      tags: ['monitoring'],
      access: permission.monitoringRead,
      before: limit,
      responses: { 200: { description: 'The figures', schema: master.Metrics } },
      handler: () => monitoring.metrics(),
    })
    .route({
      method: 'get',
      path: '/monitoring/events',
      summary: 'Platform events',
      description:
        'Newest first. type: an event type or a family (agent.*); from / to: RFC 3339 times (inclusive). Types: agent.created, agent.updated, ' +
        'agent.deleted, execution.created, execution.state_changed, certification.requested, certification.completed, federation.joined, ' +
        'federation.synced, federation.sync_failed.',
      tags: ['monitoring'],
      access: permission.monitoringRead,
      before: limit,
      query: master.EventQuery,
      responses: { 200: { description: 'A page of events', schema: master.EventPage } },
      handler: (req) => monitoring.listEvents(req.valid.query),
    });
}
