import { mcpRegistry } from '@platform/contracts';
import type { ApiRouter } from '@platform/http';
import type { RequestHandler } from 'express';
import type { LoadDistributionService } from './load-balancing.service';

export function loadDistributionRoutes(api: ApiRouter, service: LoadDistributionService, before: RequestHandler[]): void {
  api.route({
    method: 'get',
    path: '/load-balancing/distribution',
    summary: 'Live load per connection, with recommendations',
    tags: ['load balancing'],
    access: { permission: 'mcp:read' },
    before,
    responses: { 200: { description: 'Load and advice derived from it', schema: mcpRegistry.LoadDistributionResponse } },
    handler: () => service.distribution(),
  });
}
