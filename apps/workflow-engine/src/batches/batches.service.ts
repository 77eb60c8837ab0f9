import type { workflowEngine } from '@platform/contracts';
import { badRequest, type Caller } from '@platform/http';
import { rules } from '../access/ownership';
import type { TypedQueue } from '@platform/queues';
import type { ExecutionEngine } from '../executions/engine';
import type { EventBus, StreamEvent } from '../executions/event-bus';
import type { Delegations } from '../executions/delegations';
import type { batchQueue } from '../executions/execution-queue';
import type { Webhooks } from '../webhooks/webhooks';
import type { WorkflowsService } from '../workflows/workflows.service';
import type { BatchesRepository } from './batches.repository';

type Flow = workflowEngine.Flow;

type BatchRow = NonNullable<Awaited<ReturnType<BatchesRepository['find']>>>;

function view(row: BatchRow, streamBase: string) {
  return {
    batchId: row.id,
    workflowId: row.workflowId,
    totalItems: row.totalItems,
    status: row.status as 'processing' | 'completed' | 'failed',
    progress: { completed: row.completed, failed: row.failed, pending: row.totalItems - row.completed - row.failed },
    monitorUrl: `${streamBase}/api/v1/batches/${row.id}/stream`,
    owner: row.owner,
    team: row.team,
  };
}

/**
 * Batches: one job per batch runs its items through the engine, at most `concurrency` at once;
 * under `continue` a failing item does not stop the others, under `stop` no new item starts after
 * one failed. A restarted batch job skips finished items and resumes unfinished ones.
 */
export class BatchesService {
  constructor(
    private readonly repository: BatchesRepository,
    private readonly workflows: WorkflowsService,
    private readonly queue: TypedQueue<typeof batchQueue.payload>,
    private readonly engine: ExecutionEngine,
    private readonly events: EventBus,
    private readonly webhooks: Webhooks,
    private readonly delegations?: Delegations,
  ) {}

  async create(
    workflowId: string,
    request: { inputs: Array<Record<string, Record<string, unknown>>>; options: { concurrency: number; failureMode: string; progressCallback?: string } },
    caller: Caller,
    streamBase: string,
    callerToken?: string,
  ) {
    // Only who may run the workflow batches it; the batch and its items are theirs, in the workflow's team.
    const workflow = await this.workflows.runnable(workflowId, caller);
    const ids = new Set((workflow.flow as unknown as Flow).nodes.map((node) => node.id));
    request.inputs.forEach((item, index) => {
      const unknown = Object.keys(item).filter((id) => !ids.has(id));
      if (unknown.length)
        throw badRequest(`inputs[${index}] names nodes the workflow does not have: ${unknown.join(', ')}`, {
          issues: unknown.map((id) => ({ path: `body.inputs.${index}.${id}`, message: 'No such node', code: 'unknown_node' })),
        });
    });
    const delegated = await this.delegations?.obtain(callerToken);
    const row = await this.repository.create({
      workflowId,
      totalItems: request.inputs.length,
      concurrency: request.options.concurrency,
      failureMode: request.options.failureMode,
      progressCallback: request.options.progressCallback,
      inputs: request.inputs,
      requestedBy: caller.sub,
      owner: caller.sub,
      team: workflow.team,
      scope: rules.collection.readScope(caller),
    });
    await this.delegations?.keep(row.id, delegated);
    await this.queue.add('batch', { batchId: row.id }, { jobId: row.id, attempts: 25, backoff: { type: 'exponential', delay: 500 } });
    return view(row, streamBase);
  }

  async get(batchId: string, caller: Caller | undefined, streamBase: string) {
    return view(rules.batch.readable(caller, await this.repository.find(batchId), batchId), streamBase);
  }

  /** Throws the not-found answer unless the caller may read the batch (a stream's subscription). */
  async authorize(batchId: string, caller: Caller): Promise<void> {
    rules.batch.readable(caller, await this.repository.find(batchId), batchId);
  }

  async history(batchId: string): Promise<StreamEvent[]> {
    const row = await this.repository.find(batchId);
    if (!row) return [];
    const progress = { completed: row.completed, failed: row.failed, pending: row.totalItems - row.completed - row.failed };
    const events: StreamEvent[] = [{ type: 'batch-progress', batchId, totalItems: row.totalItems, progress, timestamp: new Date().toISOString() }];
    if (row.status !== 'processing')
      events.push({
        type: 'batch-completed',
        batchId,
        status: row.status,
        totalItems: row.totalItems,
        progress,
        timestamp: row.completedAt?.toISOString() ?? '',
      });
    return events;
  }

  /** The batch job. */
  async run(batchId: string, signal: AbortSignal): Promise<void> {
    const batch = await this.repository.find(batchId);
    if (!batch || batch.status !== 'processing') return;
    const inputs = batch.inputs as Array<Record<string, Record<string, unknown>>>;
    let progress = await this.repository.progress(batchId);
    let next = 0;
    let report = Promise.resolve();
    const publish = async (status?: string) => {
      const snapshot = { completed: progress.completed, failed: progress.failed, pending: batch.totalItems - progress.completed - progress.failed };
      await this.repository.saveProgress(batchId, progress, status);
      const type = status ? 'batch-completed' : 'batch-progress';
      const event = { type, batchId, totalItems: batch.totalItems, progress: snapshot, ...(status && { status }), timestamp: new Date().toISOString() };
      await this.events.publish(`batch:${batchId}`, event);
      await this.webhooks.enqueue(batch.workflowId, batch.progressCallback ?? undefined, type, event);
    };
    const lane = async () => {
      while (next < inputs.length && !signal.aborted) {
        if (batch.failureMode === 'stop' && progress.failed > 0) return;
        const index = next++;
        const execution = await this.repository.itemExecution(batch, index, inputs[index] ?? {}, {});
        if (execution.status === 'completed' || execution.status === 'failed') continue;
        await this.delegations?.copy(batchId, execution.id);
        await this.engine.run(execution.id, signal);
        progress = await this.repository.progress(batchId);
        report = report.then(() => publish());
        await report;
      }
    };
    await Promise.all(Array.from({ length: Math.min(batch.concurrency, inputs.length) }, lane));
    if (signal.aborted) throw new Error('The batch was interrupted by a shutdown; it resumes on the next worker');
    progress = await this.repository.progress(batchId);
    await publish(batch.failureMode === 'stop' && progress.failed > 0 ? 'failed' : 'completed');
  }
}
