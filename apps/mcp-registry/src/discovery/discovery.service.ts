import type { mcpRegistry } from '@platform/contracts';
import type { ReadScope } from '@platform/http';
import type { z } from 'zod';
import { publicEndpoint, uptimeSeconds } from '../connections/connections.service';
import { round } from '../numbers';
import type { LiveLoad } from '../supervisor/live-load';
import type { CandidateFilter, CandidateRow, DiscoveryRepository } from './discovery.repository';

type DiscoverRequest = z.output<typeof mcpRegistry.DiscoverRequest>;
const HEALTH_STATUSES = new Set(['healthy', 'degraded', 'initializing', 'error']);

/**
 * Finds connections holding every required capability. Without a status filter, only usable
 * connections are offered: not disconnected, not idle, health not `error`. `least-loaded` orders
 * them by live load (active requests over capacity), then response time.
 */
export class DiscoveryService {
  private roundRobin = 0;

  constructor(private readonly deps: { repository: DiscoveryRepository; liveLoad: LiveLoad }) {}

  /** Among the connections the caller may read (`scope`): discovery never offers another's connection. */
  async discover(request: DiscoverRequest, scope: ReadScope): Promise<z.output<typeof mcpRegistry.DiscoverResponse>> {
    const { filters } = request;
    const where: CandidateFilter = {
      ...this.deps.repository.visible(scope),
      ...(request.capabilities.length > 0 && { capabilityNames: { hasEvery: request.capabilities } }),
      ...(filters.protocol && { protocol: filters.protocol }),
    };
    if (filters.status && HEALTH_STATUSES.has(filters.status)) {
      Object.assign(where, { healthStatus: filters.status, status: { in: ['active', 'error'] } });
    } else if (filters.status) {
      where.status = filters.status;
    } else {
      Object.assign(where, { status: 'active', healthStatus: { not: 'error' } });
    }
    if (filters.minUptime !== undefined) where.upSince = { lte: new Date(Date.now() - filters.minUptime * 1000) };
    const strategy = request.loadBalancing?.strategy ?? 'least-loaded';
    const balanced = request.loadBalancing !== undefined && strategy !== 'none';
    const max = request.loadBalancing?.maxConnections;
    const load = await this.deps.liveLoad.snapshot();
    const loadOf = (row: { id: string; capacity: number }) => Math.min(1, round((load.get(row.id) ?? 0) / row.capacity, 4));
    let rows: CandidateRow[];
    let totalMatching: number;
    if (strategy === 'least-loaded' && max !== undefined) {
      // Only the best `max` can be chosen: those are among the connections carrying load (few,
      // known from Redis) and the `max` best idle ones, so the database never ships every match.
      const busy = [...load.entries()].filter(([, active]) => active > 0).map(([id]) => id);
      const [count, idle, loaded] = await Promise.all([
        this.deps.repository.count(where),
        this.deps.repository.fastestIdle(where, busy, max),
        busy.length > 0 ? this.deps.repository.candidates(where, busy) : Promise.resolve([]),
      ]);
      rows = [...idle, ...loaded];
      totalMatching = count;
    } else {
      rows = await this.deps.repository.candidates(where);
      totalMatching = rows.length;
    }
    const now = Date.now();
    let candidates = rows.map((row) => ({ row, load: loadOf(row) }));
    if (strategy === 'least-loaded') {
      candidates.sort(
        (a, b) =>
          a.load - b.load ||
          (a.row.lastResponseTime ?? Infinity) - (b.row.lastResponseTime ?? Infinity) ||
          (a.row.name < b.row.name ? -1 : a.row.name > b.row.name ? 1 : 0),
      );
    } else if (strategy === 'round-robin' && candidates.length > 0) {
      candidates.sort((a, b) => a.row.id.localeCompare(b.row.id));
      const start = this.roundRobin++ % candidates.length;
      candidates = [...candidates.slice(start), ...candidates.slice(0, start)];
    }
    const chosen = max ? candidates.slice(0, max) : candidates;
    return {
      connections: chosen.map(({ row, load: value }) => ({
        id: row.id,
        name: row.name,
        protocol: row.protocol as mcpRegistry.ConnectionProtocol,
        capabilities: row.capabilityNames,
        health: { status: row.healthStatus as mcpRegistry.HealthStatus, uptime: uptimeSeconds(row, now) },
        load: value,
        endpoint: publicEndpoint(row.endpoint),
      })),
      totalMatching,
      loadBalanced: balanced,
      strategy,
    };
  }
}
