import { readScopeWhere, type ReadScope } from '@platform/http';
import type { Db } from '../database';

/** Reads of runs, their steps and attempts. */
export class RunsRepository {
  constructor(private readonly db: Db) {}

  find(runId: string) {
    return this.db.run.findUnique({ where: { id: runId } });
  }

  steps(runId: string) {
    return this.db.step.findMany({ where: { runId }, orderBy: { stepId: 'asc' } });
  }

  attempts(runId: string) {
    return this.db.attempt.findMany({ where: { runId }, orderBy: [{ startedAt: 'asc' }, { number: 'asc' }] });
  }

  /** The running runs the caller may read (`scope`), newest first. */
  async running(scope: ReadScope, limit: number, offset: number) {
    const where = { state: 'running', ...readScopeWhere(scope) };
    const [rows, total] = await Promise.all([
      this.db.run.findMany({ where, orderBy: { createdAt: 'desc' }, take: limit, skip: offset }),
      this.db.run.count({ where }),
    ]);
    return { rows, total };
  }
}
