import { mcpRegistry } from '@platform/contracts';
import type { ApiRouter } from '@platform/http';
import type { RequestHandler } from 'express';
import type { CapabilityService } from './capabilities.service';

export function capabilityRoutes(api: ApiRouter, service: CapabilityService, before: RequestHandler[]): void {
  api.route({
    method: 'get',
    path: '/capabilities',
    summary: 'Capabilities across connections',
    tags: ['capabilities'],
    access: { permission: 'mcp:read' },
    before,
    responses: { 200: { description: 'Providers, requests and latency per capability', schema: mcpRegistry.CapabilitiesResponse } },
    handler: () => service.summary(),
  });
}
