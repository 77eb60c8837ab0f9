import type { mesh } from '@platform/contracts';
import type { AgentRow } from './agents.repository';

const iso = (date: Date | null) => (date ? date.toISOString() : null);

export function agentView(row: AgentRow, subscribed: boolean): mesh.MeshAgent {
  return {
    id: row.id,
    name: row.name,
    namespace: row.namespace,
    capabilities: row.capabilities,
    endpoint: row.endpoint,
    check: { type: row.checkType, target: row.checkTarget, ttl_ms: row.ttlMs },
    metadata: (row.metadata ?? {}) as Record<string, unknown>,
    status: row.status as mesh.MeshAgent['status'],
    ejected: row.ejected,
    consecutive_failures: row.consecutiveFailures,
    consecutive_passes: row.consecutivePasses,
    critical_since: iso(row.criticalSince),
    last_heartbeat_at: iso(row.lastHeartbeatAt),
    last_check_at: iso(row.lastCheckAt),
    latency_ms: row.latencyMs,
    node_id: row.nodeId,
    owner: row.owner,
    team: row.team,
    subscribed,
    registered_at: row.registeredAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
