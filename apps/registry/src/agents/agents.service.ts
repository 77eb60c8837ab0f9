import type { registry } from '@platform/contracts';
import { conflict, notFound } from '@platform/http';
import { agentRule, namespaceRule, ownership, type Caller } from '../access';
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

  /**
   * Lets `who` publish into a namespace: a new one becomes theirs, shared with `team` when given
   * (403 unless they edit that team); an existing one needs its owner, a team editor or
   * registry:admin (404 to others, 403 to a team viewer), and is already shared with one team
   * (409 when `team` names another).
   */
  async claimNamespace(who: Caller, namespace: string, team?: string): Promise<void> {
    const ns = await this.agents.namespaceOwnership(namespace, namespaceRule.ownerFor(who, team));
    namespaceRule.writable(who, ownership(ns), namespace);
    if (team && ns.team !== team) throw conflict(`Namespace ${namespace} is shared with ${ns.team ?? 'no team'}`, { namespace, team: ns.team });
  }

  /** A live agent that `who` may change (its namespace's owner, a team editor, registry:admin). */
  async writable(who: Caller, namespace: string, name: string): Promise<AgentWithOwner> {
    const agent = await this.agents.findLive(namespace, name);
    agentRule.writable(who, agent && ownership(agent.ns), `${namespace}/${name}`);
    return agent!;
  }

  /** A live agent with what only its namespace's owner, team and registry:admin may read (analytics). */
  async readable(who: Caller, namespace: string, name: string): Promise<AgentWithOwner> {
    const agent = await this.agents.findLive(namespace, name);
    agentRule.readable(who, agent && ownership(agent.ns), `${namespace}/${name}`);
    return agent!;
  }

  async update(who: Caller, namespace: string, name: string, changes: registry.AgentUpdateBody): Promise<AgentWithOwner> {
    const agent = await this.writable(who, namespace, name);
    return this.agents.update(agent.id, changes);
  }

  /** Unpublishes every version and hides the agent; the rows stay as tombstones. */
  async remove(who: Caller, namespace: string, name: string): Promise<void> {
    const agent = await this.writable(who, namespace, name);
    await this.agents.remove(agent.id, who.sub);
  }
}
