import { mcpRegistry } from '@platform/contracts';
import type { ApiRouter } from '@platform/http';
import type { RequestHandler } from 'express';
import type { ConnectionService } from '../connections/connections.service';
import type { DiscoveryService } from './discovery.service';

export function discoveryRoutes(api: ApiRouter, service: DiscoveryService, connections: ConnectionService, before: RequestHandler[]): void {
  api.route({
    method: 'post',
    path: '/connections/discover',
    summary: 'Find connections by capability',
    description:
      'Connections the caller may read holding every required capability; `least-loaded` orders them by live load (active requests over capacity) and `maxConnections` caps the answer.',
    tags: ['discovery'],
    access: { permission: 'mcp:read' },
    before,
    body: mcpRegistry.DiscoverRequest,
    responses: { 200: { description: 'Matching connections', schema: mcpRegistry.DiscoverResponse } },
    handler: (req) => service.discover(req.valid.body, connections.readScope(req.auth)),
  });
}
