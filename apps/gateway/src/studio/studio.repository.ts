import type { Db } from '../database';
import type { Prisma } from '../generated/prisma/client';

const tasksInOrder = { tasks: { orderBy: { createdAt: 'asc' as const } } };

export class StudioRepository {
  constructor(private readonly db: Db) {}

  createSession(data: { ownerSub: string; team: string | null; name: string; repository?: string; capability: string }) {
    return this.db.studioSession.create({ data: { ...data, status: 'open' }, include: tasksInOrder });
  }

  findSession(id: string) {
    return this.db.studioSession.findUnique({ where: { id }, include: tasksInOrder });
  }

  /** `scope`: the caller's read scope as a `where` fragment (`readScopeWhere`). */
  async listSessions(scope: Prisma.StudioSessionWhereInput, page: { limit: number; offset: number }) {
    const where = scope;
    const [items, total] = await Promise.all([
      this.db.studioSession.findMany({ where, include: tasksInOrder, orderBy: [{ createdAt: 'desc' }, { id: 'asc' }], take: page.limit, skip: page.offset }),
      this.db.studioSession.count({ where }),
    ]);
    return { items, total };
  }

  createTask(sessionId: string, instruction: string) {
    return this.db.studioTask.create({ data: { sessionId, instruction, status: 'queued' } });
  }

  findTask(id: string) {
    return this.db.studioTask.findUnique({ where: { id }, include: { session: true } });
  }

  /** Moves a task from one state to the next only if it is still in `from`. */
  async transition(
    id: string,
    from: string[],
    data: { status: string; messageId?: string; agentId?: string; result?: object; error?: string; finishedAt?: Date },
  ): Promise<boolean> {
    const { count } = await this.db.studioTask.updateMany({ where: { id, status: { in: from } }, data });
    return count === 1;
  }
}
