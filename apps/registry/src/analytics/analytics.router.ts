import { ErrorBody, registry } from '@platform/contracts';
import type { ApiRouter } from '@platform/http';
import { caller, READ } from '../access';
import type { RouteContext } from '../routes';
import type { AnalyticsService } from './analytics.service';

export function analyticsRoutes(api: ApiRouter, analytics: AnalyticsService, ctx: RouteContext): void {
  api.route({
    method: 'get',
    path: '/analytics/:namespace/:name',
    summary: 'Usage of an agent per day',
    description:
      'Views (GET of the agent or of a version), manifest downloads (200 answers of the manifest endpoint; 304s are not downloads) ' +
      'and search appearances (the agent on a page of search results), in UTC daily buckets from `from` to `to` inclusive ' +
      '(YYYY-MM-DD; default the last 30 days; at most 366 days). Owner of the namespace or registry:admin.',
    tags: ['analytics'],
    access: { permission: READ },
    before: ctx.limit,
    params: registry.AgentParams,
    query: registry.AnalyticsQuery,
    responses: {
      200: { description: 'Daily buckets and totals', schema: registry.AnalyticsReport },
      404: { description: 'No such agent', schema: ErrorBody },
    },
    handler: (req) => analytics.report(caller(req), req.valid.params.namespace, req.valid.params.name, req.valid.query),
  });
}
