import { UpstreamError } from '@platform/clients';
import type { master } from '@platform/contracts';
import { ApiError, badRequest, conflict } from '@platform/http';
import type { Logger } from '@platform/telemetry';
import { rules, type Caller } from '../access';
import type { AgentsRepository } from '../agents/agents.repository';
import { canReadAgent } from '../agents/agents.service';
import type { ActingFor } from '../upstream/acting-for';
import type { WorkersApi } from '../upstream/workers-api';
import type { ExecutionRow, OrchestrationRepository } from './orchestration.repository';
import { executionView, workflowView } from './orchestration.view';
import { checkGraph, engineTemplates, fillInputs, type GraphIssue } from './workflow-graph';

/** The agent's task endpoint declared in its manifest (`spec.endpoint`), when it is an http(s) URL. */
function manifestEndpoint(manifest: unknown): string | undefined {
  const endpoint = (manifest as { spec?: { endpoint?: unknown } } | null)?.spec?.endpoint;
  return typeof endpoint === 'string' && /^https?:\/\/[^\s]+$/.test(endpoint) && endpoint.length <= 2048 ? endpoint : undefined;
}

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/** Whether the caller is an editor or admin of the team, as their token says. */
function editsTeam(who: Caller, team: string): boolean {
  const role = who.teams?.find((membership) => membership.id === team)?.role;
  return role === 'editor' || role === 'admin';
}

/** Maps the words an engine may use onto the master's execution states. */
export function executionState(word: string): master.ExecutionState {
  const normalized = word.toLowerCase();
  if (['pending', 'queued', 'waiting', 'created', 'scheduled'].includes(normalized)) return 'pending';
  if (['running', 'in_progress', 'active', 'started', 'retrying'].includes(normalized)) return 'running';
  if (['completed', 'complete', 'succeeded', 'success', 'done', 'finished'].includes(normalized)) return 'completed';
  if (['cancelled', 'canceled', 'aborted', 'blocked', 'skipped'].includes(normalized)) return 'cancelled';
  if (['failed', 'failure', 'error', 'dead', 'timed_out', 'timeout'].includes(normalized)) return 'failed';
  return 'running';
}

/** Multi-agent workflows composed of registered agents, run on the workers service's DAG engine. */
export class OrchestrationService {
  constructor(
    private readonly repository: OrchestrationRepository,
    private readonly agents: AgentsRepository,
    private readonly workers: WorkersApi,
    private readonly availableCapabilities: readonly string[],
    private readonly logger: Logger,
    private readonly actFor: ActingFor,
  ) {}

  async list(who: Caller, query: { limit: number; offset: number; q?: string }) {
    const { rows, total } = await this.repository.listWorkflows(query, rules.workflow.readScope(who));
    return { items: rows.map(workflowView), total, limit: query.limit, offset: query.offset };
  }

  /**
   * Checks the DAG, that every step's agent is a registered local agent declaring what the step
   * requires, and that every capability an agent's manifest requires (`security.capabilities.
   * required`) is granted to the workflow: spec 1 says orchestrators refuse to run it otherwise.
   * A step may use only an agent the caller may read (one they may not is unknown to them).
   */
  async create(who: Caller, body: master.WorkflowCreateBody): Promise<master.Workflow> {
    const owned = rules.workflow.ownerFor(who, body.team);
    const { issues } = checkGraph(body.steps);
    const granted = body.capabilities ?? [...this.availableCapabilities];
    body.capabilities?.forEach((capability, i) => {
      if (!this.availableCapabilities.includes(capability)) {
        issues.push({ path: `body.capabilities.${i}`, code: 'capability_unavailable', message: `the platform does not offer ${capability}` });
      }
    });
    const agentIds = [...new Set(body.steps.map((step) => step.agentId))];
    const steps = body.steps.map((step) => ({ ...step }));
    const agents = new Map((await this.agents.findMany(agentIds)).filter((agent) => canReadAgent(who, agent)).map((agent) => [agent.id, agent]));
    steps.forEach((step, i) => {
      const agent = agents.get(step.agentId);
      if (!agent) return issues.push({ path: `body.steps.${i}.agentId`, code: 'unknown_agent', message: `no agent ${step.agentId}` });
      if (agent.origin !== 'local')
        return issues.push({
          path: `body.steps.${i}.agentId`,
          code: 'mirrored_agent',
          message: `agent ${step.agentId} is mirrored from ${agent.origin} and cannot run here`,
        });
      step.url ??= manifestEndpoint(agent.manifest);
      if (!step.url) {
        issues.push({
          path: `body.steps.${i}.url`,
          code: 'agent_endpoint_missing',
          message: `agent ${agent.namespace}/${agent.name} has no spec.endpoint: give the step a url`,
        });
      }
      step.requires.forEach((capability, j) => {
        if (!agent.capabilities.includes(capability)) {
          issues.push({
            path: `body.steps.${i}.requires.${j}`,
            code: 'agent_lacks_capability',
            message: `agent ${agent.namespace}/${agent.name} does not declare the capability ${capability}`,
          });
        }
      });
      for (const capability of agent.requiredCapabilities) {
        if (!granted.includes(capability)) {
          issues.push({
            path: `body.steps.${i}.agentId`,
            code: 'required_capability_unavailable',
            message: `agent ${agent.namespace}/${agent.name} requires ${capability} (security.capabilities.required), which this workflow is not granted`,
          });
        }
      }
      return undefined;
    });
    if (issues.length > 0) throw badRequest('The workflow is invalid', { issues });
    const { team: _team, ...definition } = body;
    const row = await this.repository.createWorkflow({ ...definition, steps, capabilities: granted }, agentIds, who.sub, owned);
    return workflowView(row);
  }

  /**
   * Records a pending execution, then hands the run to workers; 202 with the execution. Running is
   * for the workflow's owner, its team's editors and orchestration:admin; the execution belongs to
   * the caller and is shared with the workflow's team.
   */
  async execute(who: Caller, workflowId: string, inputs: Record<string, unknown>): Promise<master.Execution> {
    const workflow = rules.workflow.writable(who, await this.repository.findWorkflow(workflowId), workflowId);
    const steps = workflow.steps as master.WorkflowStep[];
    const missing: GraphIssue[] = [];
    const filled = steps.map((step, i) => ({
      step,
      input: fillInputs(step.inputs, inputs, `body.inputs (steps.${i}.inputs)`, missing) as Record<string, unknown>,
    }));
    if (missing.length > 0) throw badRequest('Inputs of the workflow are missing', { issues: missing });
    // The run on workers is the caller's: created with a token delegated for them, before anything is recorded.
    const authorization = await this.actFor(who);
    const stepStates = steps.map((step) => ({ id: step.id, agentId: step.agentId, state: 'pending' }));
    const created = await this.repository.createExecution(workflow, inputs, stepStates, who.sub, { owner: who.sub, team: workflow.team });
    if (!created.execution) throw conflict('Agents of the workflow no longer exist', { agentIds: created.missing });
    const agents = new Map((await this.agents.findMany(workflow.agentIds)).map((agent) => [agent.id, agent]));
    let submitted: { workflowId: string; state: string };
    try {
      submitted = await this.workers.submit(authorization, {
        // One workers definition per master workflow, each execution a run of it.
        name: `master.${workflow.id}`,
        // Shared there with the workflow's team too, when the caller may share with it (workers checks the same rule).
        ...(workflow.team && editsTeam(who, workflow.team) && { team: workflow.team }),
        steps: filled.map(({ step, input }) => {
          const agent = agents.get(step.agentId)!;
          return {
            id: step.id,
            type: 'agent',
            agent: `${agent.namespace}/${agent.name}`,
            url: step.url,
            depends_on: step.dependsOn,
            input: engineTemplates(input) as Record<string, unknown>,
          };
        }),
      });
    } catch (error) {
      await this.repository.updateExecution(created.execution, { state: 'failed', error: (error as Error).message }, who.sub);
      throw error;
    }
    const row = await this.repository.updateExecution(
      created.execution,
      { state: executionState(submitted.state), workersId: submitted.workflowId, synced: true },
      null,
    );
    return executionView(row);
  }

  /** The execution, refreshed from workers while it is not finished. */
  async execution(who: Caller, id: string): Promise<master.Execution> {
    let row = rules.execution.readable(who, await this.repository.findExecution(id), id);
    if (row.workersId && !TERMINAL.has(row.state)) row = await this.sync(row, who.authorization);
    return executionView(row);
  }

  /** The scheduled sync: every unfinished execution, with the service's own token. */
  async syncUnfinished(): Promise<number> {
    const rows = await this.repository.unfinishedExecutions(500);
    for (const row of rows) await this.sync(row, undefined);
    return rows.length;
  }

  /** Mirrors the run's state from workers; when workers cannot answer, the last mirrored state stands. */
  async sync(row: ExecutionRow, authorization: string | undefined): Promise<ExecutionRow> {
    try {
      const run = await this.workers.status(authorization, row.workersId!);
      const previous = new Map((row.steps as master.StepState[]).map((step) => [step.id, step]));
      const steps = [...previous.values()].map((step) => {
        const reported = run.steps.find((candidate) => candidate.id === step.id);
        return reported ? { ...step, state: executionState(reported.state), output: reported.output, error: reported.error ?? null } : step;
      });
      return await this.repository.updateExecution(row, { state: executionState(run.state), steps, error: run.error ?? null, synced: true }, null);
    } catch (error) {
      if (error instanceof ApiError && error.status === 403) throw error;
      // The scheduled sync's own key reads only the runs its permissions reach (workers:admin reaches
      // all): a user's run it cannot see is mirrored when the user reads it, not an outage to warn of.
      const unseen = authorization === undefined && error instanceof UpstreamError && error.upstreamStatus === 404;
      this.logger[unseen ? 'debug' : 'warn']({ err: error, execution: row.id }, 'workers did not report the execution; keeping its last mirrored state');
      return row;
    }
  }
}
