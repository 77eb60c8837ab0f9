import type { mcpRegistry } from '@platform/contracts';
import type { ReadScope } from '@platform/http';
import type { z } from 'zod';
import type { ConnectionService } from '../connections/connections.service';
import { round } from '../numbers';
import type { LoadDistributionRepository } from './load-balancing.repository';
import type { LiveLoad } from '../supervisor/live-load';

type Recommendation = z.output<typeof mcpRegistry.LoadDistributionResponse>['recommendations'][number];

/** Above this load a connection is hot; below `COLD` with others hot, it should take more. */
export const HOT = 0.8;
export const COLD = 0.2;

interface Loaded {
  id: string;
  name: string;
  capabilityNames: string[];
  load: number;
  activeRequests: number;
  capacity: number;
  requestsPerMinute: number;
  status: string;
  healthStatus: string;
}

/**
 * Advice from live numbers: hot connections with cooler peers that share their capabilities
 * (`rebalance`), hot capabilities with no spare provider (`scale-up`), failing connections
 * (`investigate`) and connections with no traffic in the last minute while peers carry it
 * (`scale-down`).
 */
export function recommend(connections: Loaded[]): Recommendation[] {
  const recommendations: Recommendation[] = [];
  const usable = connections.filter((c) => c.status === 'active' && c.healthStatus !== 'error');
  const peersOf = (c: Loaded) => usable.filter((other) => other.id !== c.id && c.capabilityNames.some((name) => other.capabilityNames.includes(name)));
  for (const hot of usable.filter((c) => c.load >= HOT)) {
    const cool = peersOf(hot)
      .filter((peer) => peer.load < HOT)
      .sort((a, b) => a.load - b.load);
    if (cool.length > 0) {
      recommendations.push({
        action: 'rebalance',
        reason: `${hot.name} is at ${Math.round(hot.load * 100)}% of its capacity (${hot.activeRequests}/${hot.capacity}) while peers with the same capabilities have room`,
        suggestedConnections: cool.map((peer) => peer.id),
      });
    } else {
      recommendations.push({
        action: 'scale-up',
        reason: `${hot.name} is at ${Math.round(hot.load * 100)}% of its capacity and no other connection offers its capabilities with room to spare`,
        suggestedConnections: [hot.id],
      });
    }
  }
  const failing = connections.filter((c) => c.status === 'error' || c.healthStatus === 'error');
  if (failing.length > 0) {
    recommendations.push({
      action: 'investigate',
      reason: `${failing.length} connection(s) fail their health checks and take no traffic from discovery`,
      suggestedConnections: failing.map((c) => c.id),
    });
  }
  const busy = usable.filter((c) => c.requestsPerMinute > 0);
  const unused = usable.filter((c) => c.requestsPerMinute === 0 && c.activeRequests === 0 && peersOf(c).some((peer) => peer.requestsPerMinute > 0));
  if (busy.length > 0 && unused.length > 0) {
    recommendations.push({
      action: 'scale-down',
      reason: `${unused.length} connection(s) had no request in the last minute while peers with the same capabilities served ${busy.reduce((sum, c) => sum + c.requestsPerMinute, 0)}`,
      suggestedConnections: unused.map((c) => c.id),
    });
  }
  return recommendations;
}

export class LoadDistributionService {
  constructor(private readonly deps: { repository: LoadDistributionRepository; connections: ConnectionService; liveLoad: LiveLoad }) {}

  /** Over the connections the caller may read: advice never names another's connection. */
  async distribution(scope: ReadScope): Promise<z.output<typeof mcpRegistry.LoadDistributionResponse>> {
    const rows = await this.deps.repository.live(scope);
    const [load, rpm] = await Promise.all([this.deps.liveLoad.snapshot(), this.deps.connections.requestsPerMinute(rows.map((row) => row.id))]);
    const connections: Loaded[] = rows.map((row) => {
      const activeRequests = load.get(row.id) ?? 0;
      return { ...row, activeRequests, load: Math.min(1, round(activeRequests / row.capacity, 4)), requestsPerMinute: rpm.get(row.id) ?? 0 };
    });
    return {
      strategy: 'least-loaded',
      connections: connections.map(({ id, name, load: value, activeRequests, capacity, requestsPerMinute }) => ({
        id,
        name,
        load: value,
        activeRequests,
        capacity,
        requestsPerMinute,
      })),
      recommendations: recommend(connections),
    };
  }
}
