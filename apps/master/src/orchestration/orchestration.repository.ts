import type { master } from '@platform/contracts';
import { readScopeWhere, type ReadScope } from '@platform/http';
import type { Db } from '../database';
import type { Execution, Prisma, Workflow } from '../generated/prisma/client';
import type { EventsRepository } from '../events/events.repository';

export type WorkflowRow = Workflow;
export type ExecutionRow = Execution;

/** The only code that touches `master.Workflow` and `master.Execution`. */
export class OrchestrationRepository {
  constructor(
    private readonly db: Db,
    private readonly events: EventsRepository,
  ) {}

  createWorkflow(
    body: master.WorkflowCreateBody & { steps: master.WorkflowStep[]; capabilities: string[] },
    agentIds: string[],
    createdBy: string,
    owned: { owner: string; team: string | null },
  ): Promise<WorkflowRow> {
    return this.db.workflow.create({
      data: {
        name: body.name,
        description: body.description ?? null,
        steps: body.steps as Prisma.InputJsonValue,
        capabilities: body.capabilities,
        agentIds,
        createdBy,
        ...owned,
      },
    });
  }

  findWorkflow(id: string): Promise<WorkflowRow | null> {
    return this.db.workflow.findUnique({ where: { id } });
  }

  /** A page of the workflows in the caller's read scope. */
  async listWorkflows(query: { limit: number; offset: number; q?: string }, scope: ReadScope) {
    const where: Prisma.WorkflowWhereInput = {
      ...readScopeWhere(scope),
      ...(query.q && { name: { contains: query.q, mode: 'insensitive' } }),
    };
    const [rows, total] = await Promise.all([
      this.db.workflow.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: query.limit, skip: query.offset }),
      this.db.workflow.count({ where }),
    ]);
    return { rows, total };
  }

  /**
   * Records a pending execution, holding the workflow's agents' rows so that none can be deleted
   * between the check that they exist and the execution's insert. Returns the agents missing.
   */
  createExecution(
    workflow: WorkflowRow,
    inputs: Record<string, unknown>,
    steps: master.StepState[],
    requestedBy: string,
    owned: { owner: string; team: string | null },
  ) {
    return this.db.$transaction(async (tx) => {
      const found = await tx.$queryRaw<Array<{ id: string }>>`
        SELECT "id"::text FROM "master"."Agent" WHERE "id" = ANY(${workflow.agentIds}::uuid[]) FOR SHARE`;
      const missing = workflow.agentIds.filter((id) => !found.some((row) => row.id === id));
      if (missing.length > 0) return { missing };
      const execution = await tx.execution.create({
        data: {
          workflowId: workflow.id,
          state: 'pending',
          inputs: inputs as Prisma.InputJsonValue,
          steps: steps as Prisma.InputJsonValue,
          requestedBy,
          ...owned,
        },
      });
      await this.events.record(
        { type: 'execution.created', subject: execution.id, actor: requestedBy, data: { workflowId: workflow.id, state: 'pending' } },
        tx,
      );
      return { execution, missing };
    });
  }

  unfinishedExecutions(limit: number): Promise<ExecutionRow[]> {
    return this.db.execution.findMany({
      where: { state: { in: ['pending', 'running'] }, workersId: { not: null } },
      orderBy: { updatedAt: 'asc' },
      take: limit,
    });
  }

  findExecution(id: string): Promise<ExecutionRow | null> {
    return this.db.execution.findUnique({ where: { id } });
  }

  /** Stores what workers reports; a change of state is recorded as an event in the same transaction. */
  updateExecution(
    previous: ExecutionRow,
    change: { state: string; steps?: master.StepState[]; error?: string | null; workersId?: string; synced?: boolean },
    actor: string | null,
  ): Promise<ExecutionRow> {
    return this.db.$transaction(async (tx) => {
      const terminal = ['completed', 'failed', 'cancelled'].includes(change.state);
      const row = await tx.execution.update({
        where: { id: previous.id },
        data: {
          state: change.state,
          ...(change.steps && { steps: change.steps as Prisma.InputJsonValue }),
          ...(change.error !== undefined && { error: change.error }),
          ...(change.workersId && { workersId: change.workersId }),
          ...(change.synced && { lastSyncedAt: new Date() }),
          ...(terminal && !previous.completedAt && { completedAt: new Date() }),
        },
      });
      if (previous.state !== change.state) {
        await this.events.record(
          { type: 'execution.state_changed', subject: previous.id, actor, data: { workflowId: previous.workflowId, from: previous.state, to: change.state } },
          tx,
        );
      }
      return row;
    });
  }
}
