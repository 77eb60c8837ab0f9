import type { Db } from '../database';
import type { Prisma } from '../generated/prisma/client';

export class WorkflowsRepository {
  constructor(private readonly db: Db) {}

  create(data: { ownerSub: string; team: string | null; name: string; framework: string; target: string; remoteId: string; definition: object }) {
    return this.db.workflow.create({ data });
  }

  find(id: string) {
    return this.db.workflow.findUnique({ where: { id } });
  }

  /** `scope`: the caller's read scope as a `where` fragment (`readScopeWhere`). */
  async list(filter: { framework?: string }, scope: Prisma.WorkflowWhereInput, page: { limit: number; offset: number }) {
    const where: Prisma.WorkflowWhereInput = { AND: [{ framework: filter.framework }, scope] };
    const [items, total] = await Promise.all([
      this.db.workflow.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'asc' }], take: page.limit, skip: page.offset }),
      this.db.workflow.count({ where }),
    ]);
    return { items, total };
  }
}
