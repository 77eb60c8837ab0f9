import type { Db } from '../database';

export class WorkflowsRepository {
  constructor(private readonly db: Db) {}

  create(data: { ownerSub: string; name: string; framework: string; target: string; remoteId: string; definition: object }) {
    return this.db.workflow.create({ data });
  }

  find(id: string) {
    return this.db.workflow.findUnique({ where: { id } });
  }

  async list(filter: { framework?: string; ownerSub?: string }, page: { limit: number; offset: number }) {
    const where = { framework: filter.framework, ownerSub: filter.ownerSub };
    const [items, total] = await Promise.all([
      this.db.workflow.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'asc' }], take: page.limit, skip: page.offset }),
      this.db.workflow.count({ where }),
    ]);
    return { items, total };
  }
}
