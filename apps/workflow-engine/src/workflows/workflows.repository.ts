import type { workflowEngine } from '@platform/contracts';
import { readScopeWhere, type ReadScope } from '@platform/http';
import type { Db } from '../database';

type Flow = workflowEngine.Flow;

export interface NewWorkflow {
  name: string;
  description: string;
  category: string;
  complexity: string;
  tags: string[];
  flow: Flow;
  templateId?: string;
  webhookSecret: string;
  createdBy: string;
  owner: string;
  team: string | null;
}

export class WorkflowsRepository {
  constructor(private readonly db: Db) {}

  /** Stores the workflow and counts its template's use in one transaction. */
  create(workflow: NewWorkflow) {
    const { flow, ...rest } = workflow;
    const insert = this.db.workflow.create({ data: { ...rest, flow: flow as object } });
    if (!workflow.templateId) return insert;
    return this.db
      .$transaction([
        insert,
        this.db.template.upsert({
          where: { id: workflow.templateId },
          create: { id: workflow.templateId, usageCount: 1 },
          update: { usageCount: { increment: 1 } },
        }),
      ])
      .then(([created]) => created);
  }

  find(id: string) {
    return this.db.workflow.findUnique({ where: { id } });
  }

  /** A page of the active workflows within `scope` (what the caller may read). */
  async page(filters: { category?: string; complexity?: string }, scope: ReadScope, limit: number, offset: number) {
    const where = {
      status: 'active',
      ...(filters.category && { category: filters.category }),
      ...(filters.complexity && { complexity: filters.complexity }),
      ...readScopeWhere(scope),
    };
    const [rows, total] = await Promise.all([
      this.db.workflow.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'asc' }], take: limit, skip: offset }),
      this.db.workflow.count({ where }),
    ]);
    return { rows, total };
  }

  /** Mean duration (ms) of each workflow's completed runs. */
  async learntDurations(workflowIds: string[]): Promise<Map<string, number>> {
    if (!workflowIds.length) return new Map();
    const groups = await this.db.execution.groupBy({
      by: ['workflowId'],
      where: { workflowId: { in: workflowIds }, status: 'completed' },
      _avg: { durationMs: true },
    });
    return new Map(groups.filter((group) => group._avg.durationMs !== null).map((group) => [group.workflowId, group._avg.durationMs as number]));
  }

  async sealedSecret(id: string): Promise<string | undefined> {
    return (await this.db.workflow.findUnique({ where: { id }, select: { webhookSecret: true } }))?.webhookSecret;
  }

  async templateUsage(): Promise<Map<string, number>> {
    const rows = await this.db.template.findMany();
    return new Map(rows.map((row) => [row.id, row.usageCount]));
  }
}
