import { localModels } from '@platform/contracts';
import { forbidden, OwnershipRule, type ApiRouter } from '@platform/http';
import type { RequestHandler } from 'express';
import type { UsageService } from './usage.service';

/**
 * The platform's ownership rule over usage records: a record belongs to the caller whose call it
 * counts (its `subject`) and to no team, so a caller reads their own and `models:admin` everyone's.
 */
export const usageRule = OwnershipRule.of('Usage record', 'models:admin');

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
      const scope = usageRule.readScope(req.auth);
      if (!scope.all && req.valid.query.subject && req.valid.query.subject !== scope.owner) {
        throw forbidden("Only models:admin may read another caller's usage", { required: 'models:admin', userPermissions: req.auth?.permissions ?? [] });
      }
      return usage.list(req.valid.query, scope.all ? req.valid.query.subject : scope.owner);
    },
  });
}
