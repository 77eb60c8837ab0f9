import type { master } from '@platform/contracts';
import type { AgentRow } from './agents.repository';

export function agentView(row: AgentRow): master.Agent {
  return {
    id: row.id,
    origin: row.origin,
    namespace: row.namespace,
    name: row.name,
    version: row.version,
    type: row.kind,
    agentType: row.agentType,
    agentKind: row.agentKind,
    tier: row.tier,
    status: row.status,
    visibility: row.visibility,
    description: row.description,
    capabilities: row.capabilities,
    certification: row.certificationId ? { id: row.certificationId, status: row.certificationStatus ?? 'queued' } : null,
    manifest: row.manifest as Record<string, unknown>,
    createdBy: row.createdBy,
    owner: row.owner,
    team: row.team,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
