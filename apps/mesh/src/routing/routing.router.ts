import { mesh } from '@platform/contracts';
import { inReadScope, type ApiRouter } from '@platform/http';
import type { z } from 'zod';
import { agentRule, type ReadScope } from '../access';
import { callerOf } from '../agents/agents.router';
import type { RoutingTable } from './routing.table';

const read = { permission: 'mesh:read' };
const admin = { permission: 'mesh:admin' };
const tags = ['routing'];

export function routingRoutes(
  api: ApiRouter,
  deps: { table: RoutingTable; invalidateEverywhere: () => Promise<void>; discovery: (scope: ReadScope) => Promise<z.infer<typeof mesh.DiscoveryStatus>> },
): void {
  const { table } = deps;
  api
    .route({
      method: 'get',
      path: '/routing/table',
      summary: 'Capability → routable agents (those the caller may read) with their outstanding requests and latency (EWMA) on this node',
      tags,
      access: read,
      responses: { 200: { description: 'The routing table', schema: mesh.RoutingTable } },
      handler: async (req) => {
        const snapshot = await table.current();
        const scope = agentRule.readScope(callerOf(req));
        const capabilities: Record<string, Array<z.infer<typeof mesh.RoutingEntry>>> = {};
        for (const [capability, all] of [...snapshot.capabilities].sort(([a], [b]) => a.localeCompare(b))) {
          const ids = all.filter((id) => inReadScope(scope, snapshot.owners.get(id) ?? { owner: null }));
          if (ids.length === 0) continue;
          capabilities[capability] = ids.map((id) => ({
            agent_id: id,
            outstanding: table.tracker.outstandingOf(id),
            latency_ewma_ms: Math.round(table.tracker.latencyOf(id) * 100) / 100,
            status: (snapshot.statuses.get(id) ?? 'passing') as 'passing',
          }));
        }
        return { version: snapshot.version, built_at: snapshot.builtAt?.toISOString() ?? null, capabilities };
      },
    })
    .route({
      method: 'post',
      path: '/routing/cache/clear',
      summary: 'Drop the cached routing table on every node (rebuilt on next use)',
      tags,
      access: admin,
      responses: { 200: { description: 'Cleared', schema: mesh.CacheResult } },
      handler: async () => {
        await deps.invalidateEverywhere();
        return { cleared: true, version: table.currentVersion };
      },
    })
    .route({
      method: 'post',
      path: '/routing/rebuild',
      summary: 'Rebuild the routing table from Postgres now',
      tags,
      access: admin,
      responses: { 200: { description: 'Rebuilt', schema: mesh.CacheResult } },
      handler: async () => {
        await deps.invalidateEverywhere();
        const snapshot = await table.current();
        return { cleared: true, version: snapshot.version, agents: snapshot.statuses.size };
      },
    })
    .route({
      method: 'get',
      path: '/discovery/status',
      summary: 'Discovery status: agents by health, capabilities, routing cache, subscribers',
      tags,
      access: read,
      responses: { 200: { description: 'Status', schema: mesh.DiscoveryStatus } },
      handler: (req) => deps.discovery(agentRule.readScope(callerOf(req))),
    });
}
