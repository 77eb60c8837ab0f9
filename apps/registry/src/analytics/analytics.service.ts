import type { registry } from '@platform/contracts';
import { badRequest } from '@platform/http';
import type { Caller } from '../access';
import type { AgentsService } from '../agents/agents.service';
import type { AnalyticsRepository } from './analytics.repository';

const DAY_MS = 24 * 3600 * 1000;
const MAX_DAYS = 366;
const isoDay = (date: Date) => date.toISOString().slice(0, 10);

/** Daily usage of an agent: views, manifest downloads, search appearances. Owner or admin. */
export class AnalyticsService {
  constructor(
    private readonly analytics: AnalyticsRepository,
    private readonly agents: AgentsService,
  ) {}

  async report(who: Caller, namespace: string, name: string, query: registry.AnalyticsQuery, now = new Date()): Promise<registry.AnalyticsReport> {
    // Usage is for the namespace's owner, its team and registry:admin: 404 to anyone else.
    const agent = await this.agents.readable(who, namespace, name);
    const to = query.to ? new Date(`${query.to}T00:00:00Z`) : new Date(`${isoDay(now)}T00:00:00Z`);
    const from = query.from ? new Date(`${query.from}T00:00:00Z`) : new Date(to.getTime() - 29 * DAY_MS);
    if (from > to) throw badRequest('from is after to', { issues: [{ path: 'query.from', message: 'must not be after to', code: 'invalid_range' }] });
    const days = Math.round((to.getTime() - from.getTime()) / DAY_MS) + 1;
    if (days > MAX_DAYS)
      throw badRequest(`The range covers ${days} days; at most ${MAX_DAYS}`, {
        issues: [{ path: 'query.from', message: `at most ${MAX_DAYS} days`, code: 'too_big' }],
      });
    const rows = await this.analytics.days(agent.id, from, to);
    const byDay = new Map(rows.map((row) => [isoDay(row.day), row]));
    const buckets = Array.from({ length: days }, (_, index) => {
      const day = isoDay(new Date(from.getTime() + index * DAY_MS));
      const row = byDay.get(day);
      return { day, views: row?.views ?? 0, downloads: row?.downloads ?? 0, searchAppearances: row?.searchAppearances ?? 0 };
    });
    const totals = buckets.reduce(
      (sum, bucket) => ({
        views: sum.views + bucket.views,
        downloads: sum.downloads + bucket.downloads,
        searchAppearances: sum.searchAppearances + bucket.searchAppearances,
      }),
      { views: 0, downloads: 0, searchAppearances: 0 },
    );
    return { namespace, name, from: isoDay(from), to: isoDay(to), totals, buckets };
  }
}
