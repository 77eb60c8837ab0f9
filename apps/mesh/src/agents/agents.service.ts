import type { mesh } from '@platform/contracts';
import { isUniqueViolation, notFound } from '@platform/http';
import { randomUUID } from 'node:crypto';
import { agentRule, type Caller, type ReadScope } from '../access';
import type { SubscriberHub } from '../grpc/subscribers';
import type { HealthService } from '../health/health.service';
import type { DeliveryService } from '../messages/delivery';
import type { MessagesRepository } from '../messages/messages.repository';
import type { LoadTracker } from '../routing/load';
import type { AgentFilter, AgentRow, AgentsRepository } from './agents.repository';
import { agentView } from './agents.view';

export interface AgentsServiceDeps {
  agents: AgentsRepository;
  messages: MessagesRepository;
  delivery: DeliveryService;
  hub: SubscriberHub;
  tracker: LoadTracker;
  health: () => HealthService;
  nodeId: string;
  /** The routing table must be rebuilt (here and on every node). */
  routingChanged: () => Promise<void>;
  /** Tells the other nodes an agent left / must re-register. */
  announceRemoved: (agentId: string) => Promise<void>;
  announceReregister: (agentIds: string[] | undefined) => Promise<void>;
}

const ENDPOINT_CACHE_MS = 5000;

/** Registration, listing and self-reported health of the agents of the mesh. */
export class AgentsService {
  private readonly endpoints = new Map<string, { endpoint: string | null; at: number }>();

  constructor(private readonly deps: AgentsServiceDeps) {}

  /**
   * Registers an agent for the caller, or re-registers a known id: only its owner, an editor of its
   * team or mesh:admin may (404 to whoever may not read it, 403 to a viewer of its team).
   */
  async register(body: mesh.RegisterAgentBody, caller: Caller): Promise<mesh.MeshAgent> {
    const check = body.check ?? { type: 'ttl' as const, ttl_ms: 30_000 };
    const input = {
      id: body.id ?? randomUUID(),
      name: body.name,
      namespace: body.namespace,
      capabilities: [...new Set(body.capabilities)],
      endpoint: body.endpoint ?? null,
      checkType: check.type,
      checkTarget: check.target ?? null,
      ttlMs: check.ttl_ms,
      metadata: body.metadata,
    };
    let row: AgentRow | null = null;
    for (let tries = 0; !row && tries < 3; tries++) {
      const existing = body.id ? await this.deps.agents.find(body.id) : null;
      if (existing) {
        agentRule.writable(caller, existing, existing.id);
        // A team given again is shared only by an editor of it; without one the agent keeps its team.
        const team = body.team === undefined ? existing.team : agentRule.ownerFor(caller, body.team).team;
        row = await this.deps.agents.reregister(input, this.deps.nodeId, existing.owner, team);
        continue;
      }
      try {
        row = await this.deps.agents.create(input, this.deps.nodeId, agentRule.ownerFor(caller, body.team));
      } catch (error) {
        // Registered meanwhile by another request: decide again, as a re-registration.
        if (!isUniqueViolation(error)) throw error;
      }
    }
    if (!row) throw notFound(`No agent ${input.id}`);
    this.endpoints.delete(row.id);
    this.deps.delivery.own(row.id);
    await this.deps.routingChanged();
    return this.view(row);
  }

  /** Deregisters for a caller who may change the agent (404 / 403 otherwise). */
  async deregisterAs(agentId: string, caller: Caller): Promise<boolean> {
    agentRule.writable(caller, await this.deps.agents.find(agentId), agentId);
    return this.deregister(agentId);
  }

  async deregister(agentId: string, reason = 'agent_deregistered'): Promise<boolean> {
    if (!(await this.deps.agents.find(agentId))) return false;
    // Waiting messages become dead letters before the agent disappears from every listing.
    await this.deps.messages.killPending(agentId, reason);
    const removed = await this.deps.agents.remove(agentId);
    if (!removed) return false;
    await this.forget(agentId, reason);
    await this.deps.routingChanged();
    await this.deps.announceRemoved(agentId);
    return true;
  }

  /** Drops what this node holds for an agent that left (its streams, worker, queue, load). */
  async forget(agentId: string, reason = 'agent_deregistered'): Promise<void> {
    for (const subscriber of this.deps.hub.of(agentId)) subscriber.close(reason);
    this.endpoints.delete(agentId);
    this.deps.tracker.forget(agentId);
    await this.deps.delivery.removeAgent(agentId);
  }

  /** The agent, when the caller may read it (404 as for a missing one otherwise); any agent for the mesh itself. */
  async get(agentId: string, caller?: Caller): Promise<AgentRow> {
    const row = await this.deps.agents.find(agentId);
    if (!caller) {
      if (!row) throw notFound(`No agent ${agentId}`);
      return row;
    }
    return agentRule.readable(caller, row, agentId);
  }

  /** The agent, when the caller may change it: report for it, subscribe as it (404 / 403 otherwise). */
  async writable(agentId: string, caller: Caller): Promise<AgentRow> {
    return agentRule.writable(caller, await this.deps.agents.find(agentId), agentId);
  }

  view(row: AgentRow): mesh.MeshAgent {
    return agentView(row, this.deps.hub.has(row.id));
  }

  /** The agents the caller may read. */
  async list(filter: AgentFilter, limit: number, offset: number, scope: ReadScope) {
    const [rows, total] = await Promise.all([this.deps.agents.list(filter, limit, offset, scope), this.deps.agents.count(filter, scope)]);
    return { agents: rows.map((row) => this.view(row)), total, limit, offset };
  }

  counts(scope: ReadScope) {
    return this.deps.agents.counts(scope);
  }

  /** Every agent (or those named) starts its health over and is asked to register again. */
  async reregister(agentIds?: string[]): Promise<{ reset: number; notified: number }> {
    const reset = await this.deps.agents.resetHealth(agentIds);
    const notified = this.notifyReregister(agentIds);
    await this.deps.announceReregister(agentIds);
    await this.deps.routingChanged();
    return { reset, notified };
  }

  notifyReregister(agentIds?: string[]): number {
    const targets = agentIds ? agentIds.flatMap((id) => this.deps.hub.of(id)) : this.deps.hub.all();
    for (const subscriber of targets) subscriber.control('reregister');
    return targets.length;
  }

  /** A TTL heartbeat or a self-report, by a caller who may change the agent: applied like a check result. */
  async report(
    agentId: string,
    status: 'healthy' | 'warning' | 'unhealthy' | 'critical',
    kind: 'ttl' | 'self',
    caller: Caller,
    output?: string,
  ): Promise<AgentRow> {
    const agent = await this.writable(agentId, caller);
    const mapped = status === 'healthy' ? 'passing' : status === 'warning' ? 'warning' : 'critical';
    const now = new Date();
    const updated = await this.deps
      .health()
      .apply(
        agent,
        { kind, status: mapped, latencyMs: null, output: output ?? `${kind === 'ttl' ? 'heartbeat' : 'self-report'}: ${status}` },
        mapped === 'critical' ? {} : { heartbeat: now },
      );
    if (!updated) throw notFound(`No agent ${agentId}`);
    return updated;
  }

  async endpointOf(agentId: string): Promise<string | null | undefined> {
    const cached = this.endpoints.get(agentId);
    if (cached && Date.now() - cached.at < ENDPOINT_CACHE_MS) return cached.endpoint;
    const row = await this.deps.agents.find(agentId);
    this.endpoints.set(agentId, { endpoint: row?.endpoint ?? null, at: Date.now() });
    return row?.endpoint;
  }
}
