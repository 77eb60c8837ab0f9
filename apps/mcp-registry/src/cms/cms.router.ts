import { mcpRegistry } from '@platform/contracts';
import type { ApiRouter } from '@platform/http';
import type { RequestHandler } from 'express';
import type { CmsSyncService } from './cms.service';

export function cmsRoutes(api: ApiRouter, service: CmsSyncService, before: RequestHandler[]): void {
  api.route({
    method: 'post',
    path: '/cms/sync',
    summary: 'Synchronise connections with a CMS over JSON:API',
    description:
      '`bidirectional` pulls the connections defined on the CMS (stdio ones only for admins), then pushes every connection the caller may read to it. Pulled connections belong to the caller.',
    tags: ['cms'],
    access: { permission: 'mcp:write' },
    before,
    body: mcpRegistry.CmsSyncRequest,
    responses: {
      200: { description: 'What was pulled and pushed', schema: mcpRegistry.CmsSyncResponse },
      502: { description: 'The CMS failed or could not be reached' },
    },
    handler: (req) => service.sync(req.valid.body, req.auth),
  });
}
