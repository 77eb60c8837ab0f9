import type { localModels } from '@platform/contracts';
import { useQuery } from '@tanstack/react-query';
import { usePlatform } from '../../api';
import { aggregateUsage, lastDays } from './usage-aggregation';

export function useModels() {
  const { request } = usePlatform();
  return useQuery({ queryKey: ['local-models', 'tags'], queryFn: () => request<localModels.TagsResponse>('local-models', '/api/tags') });
}

/** The models' prices per 1,000 tokens (spec 2's `/tools`). */
export function usePrices() {
  const { request } = usePlatform();
  return useQuery({ queryKey: ['local-models', 'tools'], queryFn: () => request<localModels.ToolsResponse>('local-models', '/tools') });
}

const USAGE_PAGE = 500;
// A chart of 10,000 calls says what a chart can; past that the totals still come from the service.
const USAGE_MAX_PAGES = 20;

/** The caller's model calls of the last `days` days, every page of them, summed per model and per day. */
export function useUsage(days: number) {
  const { request } = usePlatform();
  return useQuery({
    queryKey: ['local-models', 'usage', days],
    queryFn: async () => {
      const period = lastDays(days);
      const records: localModels.UsageRecord[] = [];
      let first: localModels.UsageList | undefined;
      for (let page = 0; page < USAGE_MAX_PAGES; page++) {
        const list = await request<localModels.UsageList>('local-models', '/usage', {
          query: { from: period.fromIso, to: period.toIso, limit: USAGE_PAGE, offset: page * USAGE_PAGE },
        });
        first ??= list;
        records.push(...list.items);
        if (records.length >= list.total || list.items.length === 0) break;
      }
      return { period, totals: first!.totals, total: first!.total, counted: records.length, series: aggregateUsage(records, period.from, period.to) };
    },
    refetchInterval: 30_000,
  });
}
