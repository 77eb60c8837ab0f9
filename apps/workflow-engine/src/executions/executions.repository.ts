import type { Db } from '../database';
import type { ExecutionFailure, NodeStates } from './execution-state';

export class ExecutionsRepository {
  constructor(private readonly db: Db) {}

  create(data: { workflowId: string; inputs: object; callbacks: object; requestedBy: string; batchId?: string; batchIndex?: number }) {
    return this.db.execution.create({ data });
  }

  find(id: string) {
    return this.db.execution.findUnique({ where: { id } });
  }

  /** The run and what the engine needs of its workflow. */
  findForRun(id: string) {
    return this.db.execution.findUnique({ where: { id }, include: { workflow: { select: { flow: true, id: true } } } });
  }

  markRunning(id: string, nodes: NodeStates) {
    return this.db.execution.update({ where: { id }, data: { status: 'running', nodes: nodes as object } });
  }

  saveNodes(id: string, nodes: NodeStates) {
    return this.db.execution.update({ where: { id }, data: { nodes: nodes as object }, select: { id: true } });
  }

  finish(id: string, outcome: { nodes: NodeStates; result: object; failure?: ExecutionFailure; completedAt: Date; durationMs: number }) {
    return this.db.execution.update({
      where: { id },
      data: {
        status: outcome.failure ? 'failed' : 'completed',
        nodes: outcome.nodes as object,
        result: outcome.result,
        error: outcome.failure ? (outcome.failure as object) : undefined,
        retryable: outcome.failure ? outcome.failure.retryable : undefined,
        completedAt: outcome.completedAt,
        durationMs: outcome.durationMs,
      },
    });
  }

  async counts(since: Date) {
    const [active, queued, totalToday] = await Promise.all([
      this.db.execution.count({ where: { status: 'running' } }),
      this.db.execution.count({ where: { status: 'queued' } }),
      this.db.execution.count({ where: { createdAt: { gte: since } } }),
    ]);
    return { active, queued, totalToday };
  }

  /** Executions left queued or running (a crash, a restart): the recovery sweep re-enqueues them. */
  unfinished(olderThan: Date, limit: number) {
    return this.db.execution.findMany({ where: { status: { in: ['queued', 'running'] }, batchId: null, createdAt: { lt: olderThan } }, select: { id: true }, take: limit });
  }
}
