import type { registry } from '@platform/contracts';
import type { AgentWithOwner } from '../agent-state.repository';

/** The API body of an agent (`RegistryAgent`). */
export function agentBody(agent: AgentWithOwner): registry.Agent {
  return {
    namespace: agent.namespace,
    name: agent.name,
    owner: agent.ns.ownerSub,
    team: agent.ns.team,
    displayName: agent.displayName,
    summary: agent.summary,
    homepage: agent.homepage,
    repository: agent.repository,
    keywords: agent.keywords,
    compliance: agent.compliance,
    latestVersion: agent.latestVersion,
    description: agent.description,
    kind: agent.kind,
    agentKind: agent.agentKind,
    agentType: agent.agentType,
    tier: agent.tier,
    status: agent.status,
    capabilities: agent.capabilities,
    tags: agent.tags,
    labels: (agent.labels ?? {}) as Record<string, string>,
    certified: agent.certified,
    certifiedVersion: agent.certifiedVersion,
    createdAt: agent.createdAt.toISOString(),
    updatedAt: agent.updatedAt.toISOString(),
  };
}
