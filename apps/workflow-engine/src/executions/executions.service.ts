import type { workflowEngine } from '@platform/contracts';
import { badRequest, type Caller } from '@platform/http';
import { activeTraceId } from '@platform/telemetry';
import { rules } from '../access/ownership';
import type { TypedQueue } from '@platform/queues';
import type { WorkflowsService } from '../workflows/workflows.service';
import type { EventBus, StreamEvent } from './event-bus';
import type { executionQueue } from './execution-queue';
import type { NodeStates } from './execution-state';
import { executionView } from './executions.view';
import type { ExecutionRow, ExecutionsRepository } from './executions.repository';
import type { Delegations } from './delegations';
import type { LocalEnds } from './local-ends';

type ExecuteRequest = workflowEngine.ExecuteRequest;
type Flow = workflowEngine.Flow;

export const EXECUTION_JOB_OPTIONS = { attempts: 25, backoff: { type: 'exponential', delay: 500 } } as const;

export class ExecutionsService {
  constructor(
    private readonly repository: ExecutionsRepository,
    private readonly workflows: WorkflowsService,
    private readonly queue: TypedQueue<typeof executionQueue.payload>,
    private readonly events: EventBus,
    private readonly syncTimeoutMs: number,
    private readonly localEnds?: LocalEnds,
    private readonly delegations?: Delegations,
  ) {}

  /**
   * Stores the run and enqueues it; `async: false` waits for its end up to the configured limit.
   * Only a caller who may run the workflow starts it; the run is theirs, in the workflow's team.
   */
  async execute(workflowId: string, request: ExecuteRequest, caller: Caller, streamBase: string, callerToken?: string) {
    const workflow = await this.workflows.runnable(workflowId, caller);
    const flow = workflow.flow as unknown as Flow;
    const ids = new Set(flow.nodes.map((node) => node.id));
    const unknown = Object.keys(request.inputs).filter((id) => !ids.has(id));
    if (unknown.length)
      throw badRequest(`inputs name nodes the workflow does not have: ${unknown.join(', ')}`, {
        issues: unknown.map((id) => ({ path: `body.inputs.${id}`, message: 'No such node', code: 'unknown_node' })),
      });
    const estimatedDuration = await this.workflows.estimatedSeconds(workflowId, flow);
    const delegated = await this.delegations?.obtain(callerToken);
    const execution = await this.repository.create({
      workflowId,
      inputs: request.inputs,
      callbacks: request.options.callbacks,
      requestedBy: caller.sub,
      owner: caller.sub,
      team: workflow.team,
      scope: rules.collection.readScope(caller),
      // The request's trace: the run's spans continue it, so the console links a run to its trace.
      traceId: activeTraceId() ?? null,
    });
    await this.delegations?.keep(execution.id, delegated);
    if (!request.options.async) this.localEnds?.watch(execution.id);
    const done = request.options.async ? undefined : this.waitForEnd(execution.id);
    try {
      await this.queue.add('execute', { executionId: execution.id }, { jobId: execution.id, ...EXECUTION_JOB_OPTIONS });
    } catch (error) {
      this.localEnds?.take(execution.id);
      throw error;
    }
    const accepted = {
      executionId: execution.id,
      workflowId,
      status: 'running',
      startedAt: execution.startedAt.toISOString(),
      estimatedDuration,
      monitorUrl: `${streamBase}/api/v1/executions/${execution.id}/stream`,
    };
    if (!done) return { status: 202, body: accepted };
    const finished = await done;
    // The run's own final row when this process ran it (one read fewer), else Postgres.
    const local = this.localEnds?.take(execution.id);
    if (!finished) return { status: 202, body: accepted };
    const view = await this.view(local ?? rules.execution.readable(caller, await this.repository.find(execution.id), execution.id));
    return { status: 200, body: { ...view, monitorUrl: accepted.monitorUrl } };
  }

  private async waitForEnd(executionId: string): Promise<boolean> {
    let stop: () => void = () => undefined;
    const ended = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), this.syncTimeoutMs);
      void this.events
        .on(`execution:${executionId}`, (event) => {
          if (event.type === 'workflow-completed' || event.type === 'workflow-failed') resolve(true);
        })
        .then((unsubscribe) => {
          stop = () => (clearTimeout(timer), unsubscribe());
        });
    });
    const result = await ended;
    stop();
    return result;
  }

  /** The run, when the caller may read it (404 exactly as for a missing one otherwise). */
  async get(executionId: string, caller: Caller | undefined) {
    return this.view(rules.execution.readable(caller, await this.repository.find(executionId), executionId));
  }

  private async view(row: ExecutionRow) {
    const workflow = await this.workflows.get(row.workflowId);
    const flow = workflow.flow as unknown as Flow;
    return executionView(row, flow, await this.workflows.estimatedSeconds(row.workflowId, flow));
  }

  /** A workflow's runs the caller may read, newest first (404 when they may not read the workflow). */
  async ofWorkflow(workflowId: string, page: { limit: number; offset: number }, caller: Caller | undefined) {
    await this.workflows.readable(workflowId, caller);
    const { rows, total } = await this.repository.pageOfWorkflow(workflowId, rules.execution.readScope(caller), page.limit, page.offset);
    return {
      executions: rows.map((row) => ({
        executionId: row.id,
        workflowId: row.workflowId,
        status: row.status as workflowEngine.ExecutionSummary['status'],
        startedAt: row.startedAt.toISOString(),
        completedAt: row.completedAt?.toISOString() ?? null,
        duration: row.durationMs,
        batchId: row.batchId,
        owner: row.owner,
        team: row.team,
        traceId: row.traceId,
      })),
      total,
      limit: page.limit,
      offset: page.offset,
    };
  }

  /** Throws the not-found answer unless the caller may read the run (a stream's subscription). */
  async authorize(executionId: string, caller: Caller): Promise<void> {
    rules.execution.readable(caller, await this.repository.find(executionId), executionId);
  }

  /** What already happened to a run, as the stream's events, oldest first. */
  async history(executionId: string): Promise<StreamEvent[]> {
    const row = await this.repository.find(executionId);
    if (!row) return [];
    const events: StreamEvent[] = [];
    for (const [nodeId, state] of Object.entries((row.nodes ?? {}) as unknown as NodeStates)) {
      if (state.startedAt) events.push({ type: 'node-started', executionId, nodeId, timestamp: state.startedAt });
      if (state.status === 'completed')
        events.push({
          type: 'node-completed',
          executionId,
          nodeId,
          duration: state.duration,
          output: state.output,
          timestamp: state.completedAt ?? state.startedAt ?? '',
        });
      if (state.status === 'failed')
        events.push({ type: 'node-failed', executionId, nodeId, attempt: state.attempts, error: state.error, timestamp: state.completedAt ?? '' });
    }
    events.sort((a, b) => a.timestamp.localeCompare(b.timestamp) || (a.type === 'node-started' ? -1 : 1));
    const ended = row.completedAt?.toISOString();
    if (row.status === 'completed')
      events.push({ type: 'workflow-completed', executionId, duration: row.durationMs, result: row.result ?? {}, timestamp: ended ?? '' });
    if (row.status === 'failed')
      events.push({
        type: 'workflow-failed',
        executionId,
        status: 'failed',
        duration: row.durationMs,
        error: row.error,
        retryable: row.retryable,
        timestamp: ended ?? '',
      });
    return events;
  }

  health(since: Date) {
    return this.repository.counts(since);
  }
}
