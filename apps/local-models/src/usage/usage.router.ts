import { localModels } from '@platform/contracts';
import { forbidden, type ApiRouter } from '@platform/http';
import { hasPermission } from '@platform/jwt';
import type { RequestHandler } from 'express';
import type { UsageService } from './usage.service';

export function usageRoutes(api: ApiRouter, usage: UsageService, before: RequestHandler[]): void {
  api.route({
    method: 'get',
    path: '/usage',
    summary: 'Model calls with their tokens and cost',
    description:
      "Newest first, paged, with totals and per-model sums over the whole filter. A caller sees their own calls; `models:admin` sees everyone's and may filter by `subject`. Records are written in batches, within about a second of the call.",
    tags: ['Usage'],
    access: { permission: 'models:read' },
    before,
    query: localModels.UsageQuery,
    responses: { 200: { description: 'The calls', schema: localModels.UsageList } },
    handler: (req) => {
      const permissions = req.auth?.permissions ?? [];
      const admin = hasPermission(permissions, 'models:admin');
      if (req.valid.query.subject && !admin && req.valid.query.subject !== req.auth?.sub) {
        throw forbidden("Only models:admin may read another caller's usage", { required: 'models:admin', userPermissions: permissions });
      }
      return usage.list(req.valid.query, admin ? req.valid.query.subject : req.auth?.sub);
    },
  });
}
