import type { Db } from '../database';

export class BatchesRepository {
  constructor(private readonly db: Db) {}

  create(data: {
    workflowId: string;
    totalItems: number;
    concurrency: number;
    failureMode: string;
    progressCallback?: string;
    inputs: object;
    requestedBy: string;
    owner: string;
    team: string | null;
    scope: object;
  }) {
    return this.db.batch.create({ data });
  }

  find(id: string) {
    return this.db.batch.findUnique({ where: { id } });
  }

  /** The item's execution, created on first run (unique per batch and index by this lookup). */
  async itemExecution(
    batch: { id: string; workflowId: string; requestedBy: string; owner: string | null; team: string | null; scope: unknown },
    index: number,
    inputs: object,
    callbacks: object,
  ) {
    const existing = await this.db.execution.findFirst({ where: { batchId: batch.id, batchIndex: index } });
    return (
      existing ??
      this.db.execution.create({
        data: {
          workflowId: batch.workflowId,
          batchId: batch.id,
          batchIndex: index,
          inputs,
          callbacks,
          requestedBy: batch.requestedBy,
          // An item is the batch's: same owner, team and reach.
          owner: batch.owner,
          team: batch.team,
          scope: (batch.scope ?? undefined) as object | undefined,
        },
      })
    );
  }

  async progress(batchId: string) {
    const groups = await this.db.execution.groupBy({ by: ['status'], where: { batchId }, _count: { _all: true } });
    const count = (status: string) => groups.find((group) => group.status === status)?._count._all ?? 0;
    return { completed: count('completed'), failed: count('failed') };
  }

  saveProgress(id: string, progress: { completed: number; failed: number }, status?: string) {
    return this.db.batch.update({ where: { id }, data: { ...progress, ...(status && { status, completedAt: new Date() }) } });
  }
}
