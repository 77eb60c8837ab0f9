import { readScopeWhere } from '@platform/http';
import type { ReadScope } from '../access';
import type { Db } from '../database';
import type { Agent, Prisma } from '../generated/prisma/client';

export type AgentRow = Agent;

export interface AgentInput {
  id: string;
  name: string;
  namespace: string;
  capabilities: string[];
  endpoint: string | null;
  checkType: string;
  checkTarget: string | null;
  ttlMs: number;
  metadata: Record<string, unknown>;
}

export interface AgentFilter {
  capability?: string;
  namespace?: string;
  status?: string;
  ejected?: boolean;
  ids?: string[];
}

export interface HealthUpdate {
  status: string;
  ejected: boolean;
  consecutiveFailures: number;
  consecutivePasses: number;
  criticalSince: Date | null;
  lastCheckAt: Date;
  latencyMs?: number | null;
  lastHeartbeatAt?: Date;
}

/** What the routing table needs of an agent. */
export interface RoutableAgent {
  id: string;
  capabilities: string[];
  status: string;
  latencyMs: number | null;
  owner: string | null;
  team: string | null;
}

const ALL: ReadScope = { all: true };

const where = (filter: AgentFilter, scope: ReadScope): Prisma.AgentWhereInput => ({
  ...(filter.capability && { capabilities: { has: filter.capability } }),
  ...(filter.namespace && { namespace: filter.namespace }),
  ...(filter.status && { status: filter.status }),
  ...(filter.ejected !== undefined && { ejected: filter.ejected }),
  ...(filter.ids && { id: { in: filter.ids } }),
  // Only what the caller may read: its own, its teams', or everything for mesh:admin.
  ...(readScopeWhere(scope) as Prisma.AgentWhereInput),
});

const FRESH_HEALTH = { status: 'passing', ejected: false, consecutiveFailures: 0, consecutivePasses: 0, criticalSince: null };

export class AgentsRepository {
  constructor(private readonly db: Db) {}

  /** Registers a new agent with its owner; a taken id fails with a unique violation (never takes the row over). */
  create(input: AgentInput, nodeId: string, ownership: { owner: string; team: string | null }): Promise<AgentRow> {
    return this.db.agent.create({
      data: { ...input, metadata: input.metadata as Prisma.InputJsonValue, nodeId, ...ownership, ...FRESH_HEALTH, lastHeartbeatAt: new Date() },
    });
  }

  /**
   * Re-registers a known agent: it keeps its history and owner, its health starts over. Only while
   * the owner is still the one the caller was checked against (a concurrent change makes it null).
   */
  async reregister(input: AgentInput, nodeId: string, checkedOwner: string | null, team: string | null): Promise<AgentRow | null> {
    const rows = await this.db.agent.updateManyAndReturn({
      where: { id: input.id, owner: checkedOwner },
      data: { ...input, metadata: input.metadata as Prisma.InputJsonValue, nodeId, team, ...FRESH_HEALTH, lastHeartbeatAt: new Date() },
    });
    return rows[0] ?? null;
  }

  find(id: string): Promise<AgentRow | null> {
    return this.db.agent.findUnique({ where: { id } });
  }

  async remove(id: string): Promise<boolean> {
    const { count } = await this.db.agent.deleteMany({ where: { id } });
    return count > 0;
  }

  list(filter: AgentFilter, limit: number, offset: number, scope: ReadScope = ALL): Promise<AgentRow[]> {
    return this.db.agent.findMany({ where: where(filter, scope), orderBy: { id: 'asc' }, take: limit, skip: offset });
  }

  count(filter: AgentFilter = {}, scope: ReadScope = ALL): Promise<number> {
    return this.db.agent.count({ where: where(filter, scope) });
  }

  async counts(scope: ReadScope = ALL): Promise<{ total: number; passing: number; warning: number; critical: number; ejected: number; routable: number }> {
    const [byStatus, ejected, routable] = await Promise.all([
      this.db.agent.groupBy({ by: ['status'], where: where({}, scope), _count: { _all: true } }),
      this.db.agent.count({ where: where({ ejected: true }, scope) }),
      this.db.agent.count({ where: where({ ejected: false }, scope) }),
    ]);
    const of = (status: string) => byStatus.find((row) => row.status === status)?._count._all ?? 0;
    return {
      total: byStatus.reduce((sum, row) => sum + row._count._all, 0),
      passing: of('passing'),
      warning: of('warning'),
      critical: of('critical'),
      ejected,
      routable,
    };
  }

  /** Agents that may receive traffic: those not ejected (outlier ejection decides, not one check). */
  routable(): Promise<RoutableAgent[]> {
    return this.db.agent.findMany({
      where: { ejected: false },
      select: { id: true, capabilities: true, status: true, latencyMs: true, owner: true, team: true },
    });
  }

  ownedBy(nodeId: string): Promise<AgentRow[]> {
    return this.db.agent.findMany({ where: { nodeId } });
  }

  idsOwnedBy(nodeId: string): Promise<string[]> {
    return this.db.agent.findMany({ where: { nodeId }, select: { id: true } }).then((rows) => rows.map((row) => row.id));
  }

  async updateHealth(id: string, update: HealthUpdate): Promise<AgentRow | null> {
    const rows = await this.db.agent.updateManyAndReturn({ where: { id }, data: update });
    return rows[0] ?? null;
  }

  heartbeat(id: string, at: Date): Promise<number> {
    return this.db.agent.updateMany({ where: { id }, data: { lastHeartbeatAt: at } }).then((result) => result.count);
  }

  /** Everyone (or the ids given) back to passing and routable. */
  resetHealth(ids?: string[]): Promise<number> {
    return this.db.agent
      .updateMany({
        where: ids ? { id: { in: ids } } : {},
        data: { status: 'passing', ejected: false, consecutiveFailures: 0, consecutivePasses: 0, criticalSince: null, lastHeartbeatAt: new Date() },
      })
      .then((result) => result.count);
  }

  /** Moves the agents of removed nodes onto live ones, round robin. */
  async reassign(fromNodes: string[], toNodes: string[]): Promise<number> {
    if (fromNodes.length === 0 || toNodes.length === 0) return 0;
    const orphans = await this.db.agent.findMany({
      where: { OR: [{ nodeId: { in: fromNodes } }, { nodeId: null }] },
      select: { id: true },
      orderBy: { id: 'asc' },
    });
    const byNode = new Map<string, string[]>();
    orphans.forEach((agent, index) => {
      const node = toNodes[index % toNodes.length];
      byNode.set(node, [...(byNode.get(node) ?? []), agent.id]);
    });
    for (const [nodeId, ids] of byNode) await this.db.agent.updateMany({ where: { id: { in: ids } }, data: { nodeId } });
    return orphans.length;
  }

  countByNode(): Promise<Map<string, number>> {
    return this.db.agent.groupBy({ by: ['nodeId'], _count: { _all: true } }).then((rows) => new Map(rows.map((row) => [row.nodeId ?? '', row._count._all])));
  }
}
