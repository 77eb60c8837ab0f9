import { registry } from '@platform/contracts';
import type { ApiRouter } from '@platform/http';
import { READ } from '../access';
import type { RouteContext } from '../routes';
import type { SearchService } from './search.service';

export function searchRoutes(api: ApiRouter, search: SearchService, ctx: RouteContext): void {
  api.route({
    method: 'get',
    path: '/search',
    summary: 'Search agents',
    description:
      'Full-text search (Postgres text search, English stemming, every word matched as a prefix) over name, display name, ' +
      'description, summary, labels, tags, categories, capabilities, keywords and compliance frameworks, ranked with ts_rank ' +
      '(name first, then those terms, then descriptions). The filters of GET /agents apply, as separate parameters or in `filters` ' +
      '(`certified:true,tier:tier_3_write_elevated` or a JSON object). Each agent on the page counts a search appearance.',
    tags: ['search'],
    access: { permission: READ },
    before: ctx.limit,
    query: registry.SearchQuery,
    responses: { 200: { description: 'A page of ranked agents with the total', schema: registry.SearchPage } },
    handler: async (req) => {
      const { page, agentIds } = await search.search(req.valid.query);
      ctx.usage.searchAppearances(agentIds);
      return page;
    },
  });
}
