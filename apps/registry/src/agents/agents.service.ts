import type { registry } from '@platform/contracts';
import { notFound } from '@platform/http';
import { assertOwner, type Caller } from '../access';
import type { AgentWithOwner } from '../agent-state.repository';
import type { AgentQuery } from './agent-query';
import type { AgentsRepository } from './agents.repository';
import { agentBody } from './agents.view';

export type { AgentWithOwner };

/** Agents: reading, listing and searching, agent-level metadata, deletion, namespace ownership. */
export class AgentsService {
  constructor(private readonly agents: AgentsRepository) {}

  /** A live (not deleted) agent with its owner, or 404. */
  async get(namespace: string, name: string): Promise<AgentWithOwner> {
    const agent = await this.agents.findLive(namespace, name);
    if (!agent) throw notFound(`Agent ${namespace}/${name} not found`);
    return agent;
  }

  list(query: registry.AgentListQuery) {
    const { limit, offset, ...filters } = query;
    return this.agents.query({ ...filters, limit, offset });
  }

  /** Full-text search with the list filters, ranked. */
  search(query: AgentQuery) {
    return this.agents.query(query);
  }

  /** The API body of an agent, for the resources that answer with one. */
  body(agent: AgentWithOwner): registry.Agent {
    return agentBody(agent);
  }

  /** The owner of a namespace; a new namespace becomes `who`'s. 403 when another caller owns it. */
  async claimNamespace(who: Caller, namespace: string): Promise<void> {
    assertOwner(who, await this.agents.namespaceOwner(namespace, who.sub), namespace);
  }

  async update(who: Caller, namespace: string, name: string, changes: registry.AgentUpdateBody): Promise<AgentWithOwner> {
    const agent = await this.get(namespace, name);
    assertOwner(who, agent.ns.ownerSub, namespace);
    return this.agents.update(agent.id, changes);
  }

  /** Unpublishes every version and hides the agent; the rows stay as tombstones. */
  async remove(who: Caller, namespace: string, name: string): Promise<void> {
    const agent = await this.get(namespace, name);
    assertOwner(who, agent.ns.ownerSub, namespace);
    await this.agents.remove(agent.id, who.sub);
  }
}
