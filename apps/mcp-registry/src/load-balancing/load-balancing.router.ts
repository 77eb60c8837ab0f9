import { mcpRegistry } from '@platform/contracts';
import type { ApiRouter } from '@platform/http';
import type { RequestHandler } from 'express';
import type { ConnectionService } from '../connections/connections.service';
import type { LoadDistributionService } from './load-balancing.service';

export function loadDistributionRoutes(api: ApiRouter, service: LoadDistributionService, connections: ConnectionService, before: RequestHandler[]): void {
  api.route({
    method: 'get',
    path: '/load-balancing/distribution',
    summary: 'Live load per connection, with recommendations',
    description: 'Over the connections the caller may read.',
    tags: ['load balancing'],
    access: { permission: 'mcp:read' },
    before,
    responses: { 200: { description: 'Load and advice derived from it', schema: mcpRegistry.LoadDistributionResponse } },
    handler: (req) => service.distribution(connections.readScope(req.auth)),
  });
}
