import { ErrorBody, gateway } from '@platform/contracts';
import type { ApiRouter } from '@platform/http';
import { caller } from '../access/caller';
import type { DiscoveryService } from './discovery.service';

export function discoveryRoutes(api: ApiRouter, discovery: DiscoveryService): void {
  api.route({
    method: 'get',
    path: '/registry/discover',
    summary: 'Agents (registry), live agents (mesh) and MCP servers (mcp-registry) in one answer',
    tags: ['discovery'],
    access: { permission: 'registry:read' },
    query: gateway.DiscoverQuery,
    responses: {
      200: { description: 'What was found; `sources` says which answered', schema: gateway.DiscoverResult },
      401: { description: 'No valid token or API key', schema: ErrorBody },
      403: { description: 'Lacking the permission', schema: ErrorBody },
      429: { description: 'Rate limited', schema: ErrorBody },
      502: { description: 'Every source failed (named)', schema: ErrorBody },
    },
    handler: (req) => discovery.discover(caller(req), req.valid.query),
  });
}
