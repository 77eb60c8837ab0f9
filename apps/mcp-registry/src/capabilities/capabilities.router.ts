import { mcpRegistry } from '@platform/contracts';
import type { ApiRouter } from '@platform/http';
import type { RequestHandler } from 'express';
import type { ConnectionService } from '../connections/connections.service';
import type { CapabilityService } from './capabilities.service';

export function capabilityRoutes(api: ApiRouter, service: CapabilityService, connections: ConnectionService, before: RequestHandler[]): void {
  api.route({
    method: 'get',
    path: '/capabilities',
    summary: 'Capabilities across connections',
    description: 'Over the connections the caller may read.',
    tags: ['capabilities'],
    access: { permission: 'mcp:read' },
    before,
    responses: { 200: { description: 'Providers, requests and latency per capability', schema: mcpRegistry.CapabilitiesResponse } },
    handler: (req) => service.summary(connections.readScope(req.auth)),
  });
}
