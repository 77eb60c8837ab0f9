import type { registry } from '@platform/contracts';
import type { AgentsService } from '../agents/agents.service';
import { mergeFilters } from './search-filters';

/** Spec 2's search: the agents' full-text search with the list filters, as a page of ranked agents. */
export class SearchService {
  constructor(private readonly agents: AgentsService) {}

  /** The page, and the ids of the agents on it (each counts a search appearance). */
  async search(query: registry.SearchQuery): Promise<{ page: registry.SearchPage; agentIds: string[] }> {
    const { q, limit, offset, filters: combined, ...separate } = query;
    const filters = mergeFilters(combined, separate);
    const { items, total } = await this.agents.search({ ...filters, text: q, limit, offset });
    return {
      page: { query: q, items: items.map((item) => ({ ...this.agents.body(item), rank: item.rank })), total, limit, offset },
      agentIds: items.map((item) => item.id),
    };
  }
}
