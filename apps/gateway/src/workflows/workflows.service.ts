import type { WorkersClient, WorkflowEngineClient } from '@platform/clients';
import type { gateway, workers } from '@platform/contracts';
import { readScopeWhere } from '@platform/http';
import type { z } from 'zod';
import { owned, rules, scopeColumns } from '../access/ownership';
import type { Caller } from '../agents/agents.service';
import type { WorkflowsRepository } from './workflows.repository';

type Row = NonNullable<Awaited<ReturnType<WorkflowsRepository['find']>>>;
const FLOW_BASED = new Set(['langflow', 'flow']);

const view = (row: Row) => ({
  id: row.id,
  name: row.name,
  framework: row.framework as z.infer<typeof gateway.WorkflowFramework>,
  target: row.target as 'workflow-engine' | 'workers',
  remoteId: row.remoteId,
  owner: row.ownerSub,
  team: row.team,
  createdAt: row.createdAt.toISOString(),
});

/**
 * Workflows by framework: flow-based ones (`langflow`, `flow`) are created on the workflow engine;
 * chain-based ones (`langchain`, `chain`) are durable step graphs that workers run on execute.
 */
export class WorkflowsService {
  constructor(
    private readonly repository: WorkflowsRepository,
    private readonly deps: { workflowEngine: WorkflowEngineClient; workers: WorkersClient },
  ) {}

  async create(caller: Caller, body: z.infer<typeof gateway.CreateWorkflowBody>) {
    const { owner, team } = rules.workflow.ownerFor(caller, body.team);
    if (FLOW_BASED.has(body.framework)) {
      const created = await this.deps.workflowEngine.create(
        { name: body.name, description: body.description, category: body.category, flow: body.flow! },
        { bearer: caller.bearer },
      );
      return view(
        await this.repository.create({
          ownerSub: owner,
          team,
          name: body.name,
          framework: body.framework,
          target: 'workflow-engine',
          remoteId: created.id,
          definition: body,
        }),
      );
    }
    return view(
      await this.repository.create({
        ownerSub: owner,
        team,
        name: body.name,
        framework: body.framework,
        target: 'workers',
        remoteId: body.name,
        definition: body,
      }),
    );
  }

  async list(caller: Caller, query: z.infer<typeof gateway.WorkflowListQuery>) {
    const scope = readScopeWhere(rules.workflow.readScope(caller), scopeColumns);
    const { items, total } = await this.repository.list({ framework: query.framework }, scope, query);
    return { items: items.map(view), total, limit: query.limit, offset: query.offset };
  }

  async execute(caller: Caller, id: string, inputs: Record<string, unknown>) {
    const row = rules.workflow.writable(caller, owned(await this.repository.find(id)), id);
    const call = { bearer: caller.bearer };
    const definition = row.definition as { steps?: Array<Record<string, unknown>> };
    const execution =
      row.target === 'workflow-engine'
        ? await this.deps.workflowEngine.execute(row.remoteId, inputs, call)
        : await this.deps.workers.submit({ name: row.remoteId, steps: (definition.steps ?? []) as workers.StartWorkflowBody['steps'], input: inputs }, call);
    return { workflowId: row.id, target: row.target, execution };
  }
}
