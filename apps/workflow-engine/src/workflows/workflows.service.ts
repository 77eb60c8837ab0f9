import type { workflowEngine } from '@platform/contracts';
import { badRequest, notFound, type Caller } from '@platform/http';
import { rules } from '../access/ownership';
import { componentOf } from '../components/library';
import { assertValidFlow, complexityOf, graphOf } from '../flow/flow';
import { newWebhookSecret, type SecretBox } from '../webhooks/secret-box';
import { TEMPLATES } from './templates';
import type { WorkflowsRepository } from './workflows.repository';

type CreateWorkflowRequest = workflowEngine.CreateWorkflowRequest;
type Flow = workflowEngine.Flow;

/** Seconds a flow typically takes: its critical path of component estimates. */
export function typicalSeconds(flow: Flow): number {
  const { order, parents } = graphOf(flow);
  const types = new Map(flow.nodes.map((node) => [node.id, node.type]));
  const finish = new Map<string, number>();
  for (const id of order) {
    const start = Math.max(0, ...(parents.get(id) ?? []).map((edge) => finish.get(edge.source) ?? 0));
    finish.set(id, start + (componentOf(types.get(id) ?? '')?.typicalSeconds ?? 1));
  }
  return Math.max(0, ...finish.values());
}

export class WorkflowsService {
  constructor(
    private readonly repository: WorkflowsRepository,
    private readonly secrets: SecretBox,
  ) {}

  async create(request: CreateWorkflowRequest, caller: Caller) {
    const owned = rules.workflow.ownerFor(caller, request.team);
    const template = request.templateId ? TEMPLATES.find((candidate) => candidate.id === request.templateId) : undefined;
    if (request.templateId && !template)
      throw badRequest(`Unknown template ${request.templateId}`, {
        issues: [{ path: 'body.templateId', message: `Known templates: ${TEMPLATES.map((t) => t.id).join(', ')}`, code: 'invalid_value' }],
      });
    const flow = (request.flow ?? template?.flow) as Flow;
    assertValidFlow(flow);
    const secret = newWebhookSecret();
    const row = await this.repository.create({
      name: request.name,
      description: request.description,
      category: request.category,
      complexity: complexityOf(flow),
      tags: request.tags.length ? request.tags : (template?.tags ?? []),
      flow,
      templateId: template?.id,
      webhookSecret: this.secrets.seal(secret),
      createdBy: caller.sub,
      ...owned,
    });
    return {
      id: row.id,
      name: row.name,
      status: row.status,
      version: row.version,
      createdAt: row.createdAt.toISOString(),
      endpoints: { execute: `/api/v1/workflows/${row.id}/execute`, monitor: `/api/v1/executions/{executionId}/stream` },
      owner: row.owner,
      team: row.team,
      webhookSecret: secret,
    };
  }

  // Workflows never change once stored (no endpoint edits them), so their rows are cached.
  private readonly cache = new Map<string, NonNullable<Awaited<ReturnType<WorkflowsRepository['find']>>>>();

  async get(id: string) {
    const cached = this.cache.get(id);
    if (cached) return cached;
    const row = await this.repository.find(id);
    if (!row || row.status !== 'active') throw notFound(`No workflow ${id}`);
    if (this.cache.size >= 1000) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(id, row);
    return row;
  }

  /** The stored workflow with its flow, when the caller may read it (404 exactly as for a missing one otherwise). */
  async detail(id: string, caller: Caller | undefined): Promise<workflowEngine.WorkflowDetail> {
    const row = rules.workflow.readable(caller, await this.get(id), id);
    return {
      id: row.id,
      name: row.name,
      description: row.description,
      category: row.category,
      complexity: row.complexity,
      tags: row.tags,
      status: row.status,
      version: row.version,
      createdAt: row.createdAt.toISOString(),
      flow: row.flow as unknown as Flow,
      owner: row.owner,
      team: row.team,
    };
  }

  /** The workflow when the caller may read it (404 otherwise). */
  async readable(id: string, caller: Caller | undefined) {
    return rules.workflow.readable(caller, await this.get(id), id);
  }

  /** The workflow when the caller may run it (404 when they may not read it, 403 when they only read it). */
  async runnable(id: string, caller: Caller | undefined) {
    return rules.workflow.writable(caller, await this.get(id), id);
  }

  private readonly estimates = new Map<string, { seconds: number; at: number }>();

  /** Seconds a run of this workflow is expected to take: learnt from its runs (cached 10 s), else typical. */
  async estimatedSeconds(workflowId: string, flow: Flow): Promise<number> {
    const cached = this.estimates.get(workflowId);
    if (cached && Date.now() - cached.at < 10_000) return cached.seconds;
    const learnt = (await this.repository.learntDurations([workflowId])).get(workflowId);
    const seconds = learnt !== undefined ? Math.round(learnt / 10) / 100 : typicalSeconds(flow);
    if (this.estimates.size > 10_000) this.estimates.clear();
    this.estimates.set(workflowId, { seconds, at: Date.now() });
    return seconds;
  }

  /** The workflows the caller may read. */
  async catalog(query: { category?: string; complexity?: string; limit: number; offset: number }, caller: Caller | undefined) {
    const { rows, total } = await this.repository.page(query, rules.workflow.readScope(caller), query.limit, query.offset);
    const learnt = await this.repository.learntDurations(rows.map((row) => row.id));
    return {
      workflows: rows.map((row) => {
        const flow = row.flow as unknown as Flow;
        const groups = [...new Set(flow.nodes.map((node) => componentOf(node.type)?.group.toLowerCase()).filter(Boolean))] as string[];
        const ms = learnt.get(row.id);
        return {
          id: row.id,
          name: row.name,
          description: row.description,
          category: row.category,
          complexity: row.complexity,
          components: flow.nodes.length,
          estimatedDuration: ms !== undefined ? Math.round(ms / 10) / 100 : typicalSeconds(flow),
          tags: [...new Set([...row.tags, ...groups])],
          owner: row.owner,
          team: row.team,
        };
      }),
      total,
      limit: query.limit,
      offset: query.offset,
    };
  }

  async templates() {
    const usage = await this.repository.templateUsage();
    return {
      templates: TEMPLATES.map((template) => ({
        id: template.id,
        name: template.name,
        description: template.description,
        category: template.category,
        components: template.flow.nodes.length,
        usageCount: usage.get(template.id) ?? 0,
        tags: template.tags,
        flow: template.flow,
      })),
    };
  }
}
