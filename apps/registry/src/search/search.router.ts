import { registry } from '@platform/contracts';
import type { ApiRouter } from '@platform/http';
import { READ } from '../access';
import { agentBody } from '../agents/agent-view';
import type { Db } from '../database';
import type { RouteContext } from '../routes';
import { queryAgents } from './agent-query';
import { mergeFilters } from './search-filters';

export function searchRoutes(api: ApiRouter, db: Db, ctx: RouteContext): void {
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
      const { q, limit, offset, filters: combined, ...separate } = req.valid.query;
      const filters = mergeFilters(combined, separate);
      const { items, total } = await queryAgents(db, { ...filters, text: q, limit, offset });
      ctx.usage.searchAppearances(items.map((item) => item.id));
      return { query: q, items: items.map((item) => ({ ...agentBody(item), rank: item.rank })), total, limit, offset };
    },
  });
}
