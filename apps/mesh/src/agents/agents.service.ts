import type { mesh } from '@platform/contracts';
import { notFound } from '@platform/http';
import { randomUUID } from 'node:crypto';
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

  async register(body: mesh.RegisterAgentBody): Promise<mesh.MeshAgent> {
    const check = body.check ?? { type: 'ttl' as const, ttl_ms: 30_000 };
    const row = await this.deps.agents.upsert(
      {
        id: body.id ?? randomUUID(),
        name: body.name,
        namespace: body.namespace,
        capabilities: [...new Set(body.capabilities)],
        endpoint: body.endpoint ?? null,
        checkType: check.type,
        checkTarget: check.target ?? null,
        ttlMs: check.ttl_ms,
        metadata: body.metadata,
      },
      this.deps.nodeId,
    );
    this.endpoints.delete(row.id);
    this.deps.delivery.own(row.id);
    await this.deps.routingChanged();
    return this.view(row);
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

  async get(agentId: string): Promise<AgentRow> {
    const row = await this.deps.agents.find(agentId);
    if (!row) throw notFound(`No agent ${agentId}`);
    return row;
  }

  view(row: AgentRow): mesh.MeshAgent {
    return agentView(row, this.deps.hub.has(row.id));
  }

  async list(filter: AgentFilter, limit: number, offset: number) {
    const [rows, total] = await Promise.all([this.deps.agents.list(filter, limit, offset), this.deps.agents.count(filter)]);
    return { agents: rows.map((row) => this.view(row)), total, limit, offset };
  }

  counts() {
    return this.deps.agents.counts();
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

  /** A TTL heartbeat or a self-report: applied like a check result. */
  async report(agentId: string, status: 'healthy' | 'warning' | 'unhealthy' | 'critical', kind: 'ttl' | 'self', output?: string): Promise<AgentRow> {
    const agent = await this.get(agentId);
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
