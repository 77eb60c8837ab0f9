import type { master } from '@platform/contracts';
import { readScopeWhere, type ReadScope } from '@platform/http';
import type { Db } from '../database';
import type { Agent, Prisma } from '../generated/prisma/client';
import type { EventsRepository } from '../events/events.repository';
import type { ManifestFacts } from './manifest-facts';

export type AgentRow = Agent;

const ORDER: Record<master.AgentListQuery['sort'], Prisma.AgentOrderByWithRelationInput[]> = {
  name: [{ name: 'asc' }, { namespace: 'asc' }, { origin: 'asc' }],
  '-name': [{ name: 'desc' }, { namespace: 'desc' }, { origin: 'desc' }],
  createdAt: [{ createdAt: 'asc' }, { id: 'asc' }],
  '-createdAt': [{ createdAt: 'desc' }, { id: 'desc' }],
  updatedAt: [{ updatedAt: 'asc' }, { id: 'asc' }],
  '-updatedAt': [{ updatedAt: 'desc' }, { id: 'desc' }],
};

const ACTIVE_EXECUTION_STATES = ['pending', 'running'];

/** The only code that touches `master.Agent`. */
export class AgentsRepository {
  constructor(
    private readonly db: Db,
    private readonly events: EventsRepository,
  ) {}

  find(id: string): Promise<AgentRow | null> {
    return this.db.agent.findUnique({ where: { id } });
  }

  findMany(ids: string[]): Promise<AgentRow[]> {
    return this.db.agent.findMany({ where: { id: { in: ids } } });
  }

  findLocal(namespace: string, name: string): Promise<AgentRow | null> {
    return this.db.agent.findUnique({ where: { origin_namespace_name: { origin: 'local', namespace, name } } });
  }

  /**
   * A page of the agents in the caller's read scope: their own, their teams' and the catalog's
   * (mirrored from federation peers, or public; agents.service.ts, `isCatalogAgent`).
   */
  async list(query: master.AgentListQuery, scope: ReadScope): Promise<{ rows: AgentRow[]; total: number }> {
    const readable: Prisma.AgentWhereInput = scope.all ? {} : { OR: [readScopeWhere(scope), { origin: { not: 'local' } }, { visibility: 'public' }] };
    const filters: Prisma.AgentWhereInput = {
      ...(query.origin !== 'all' && { origin: query.origin }),
      ...(query.type && { kind: query.type }),
      ...(query.capability && { capabilities: { has: query.capability } }),
      ...(query.status && { status: query.status }),
      ...(query.visibility && { visibility: query.visibility }),
      ...(query.q && {
        OR: [
          { name: { contains: query.q, mode: 'insensitive' } },
          { namespace: { contains: query.q, mode: 'insensitive' } },
          { description: { contains: query.q, mode: 'insensitive' } },
        ],
      }),
    };
    const where: Prisma.AgentWhereInput = { AND: [readable, filters] };
    const [rows, total] = await Promise.all([
      this.db.agent.findMany({ where, orderBy: ORDER[query.sort], take: query.limit, skip: query.offset }),
      this.db.agent.count({ where }),
    ]);
    return { rows, total };
  }

  async create(facts: ManifestFacts, manifest: object, createdBy: string, owned: { owner: string; team: string | null }): Promise<AgentRow> {
    return this.db.$transaction(async (tx) => {
      const row = await tx.agent.create({ data: { ...facts, manifest: manifest as Prisma.InputJsonValue, createdBy, ...owned } });
      await this.events.record(
        { type: 'agent.created', subject: row.id, actor: createdBy, data: { namespace: row.namespace, name: row.name, version: row.version } },
        tx,
      );
      return row;
    });
  }

  async replace(id: string, facts: ManifestFacts, manifest: object, actor: string): Promise<AgentRow> {
    return this.db.$transaction(async (tx) => {
      const row = await tx.agent.update({
        where: { id },
        // A new manifest is a new thing to certify: the previous certification no longer speaks for it.
        data: { ...facts, manifest: manifest as Prisma.InputJsonValue, certificationId: null, certificationStatus: null },
      });
      await this.events.record({ type: 'agent.updated', subject: id, actor, data: { namespace: row.namespace, name: row.name, version: row.version } }, tx);
      return row;
    });
  }

  /**
   * Deletes an agent unless a pending or running execution uses it; the check and the delete run
   * in one transaction holding the agent's row, so an execution cannot start in between.
   */
  async deleteUnlessInUse(id: string, actor: string): Promise<{ deleted: true } | { deleted: false; executions: string[] }> {
    return this.db.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT 1 FROM "master"."Agent" WHERE "id" = ${id}::uuid FOR UPDATE`;
      const running = await tx.execution.findMany({
        where: { state: { in: ACTIVE_EXECUTION_STATES }, workflow: { agentIds: { has: id } } },
        select: { id: true },
        take: 20,
      });
      if (running.length > 0) return { deleted: false, executions: running.map((execution) => execution.id) };
      const row = await tx.agent.delete({ where: { id } });
      await this.events.record({ type: 'agent.deleted', subject: id, actor, data: { namespace: row.namespace, name: row.name } }, tx);
      return { deleted: true };
    });
  }

  setCertification(id: string, certificationId: string, status: string): Promise<unknown> {
    return this.db.agent.updateMany({ where: { id }, data: { certificationId, certificationStatus: status } });
  }
}
