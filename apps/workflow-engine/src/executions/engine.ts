import type { workflowEngine } from '@platform/contracts';
import type { Logger } from '@platform/telemetry';
import { z } from 'zod';
import type { ComponentContext, ComponentResult } from '../components/component';
import type { ComponentDefinition } from '../components/component';
import { componentOf } from '../components/library';
import { NodeError, toNodeError } from '../components/node-error';
import { graphOf, resolveTemplates } from '../flow/flow';
import type { EventBus, StreamEvent } from './event-bus';
import { backoffDelay, type ExecutionFailure, type NodeState, type NodeStates } from './execution-state';
import type { ExecutionRow, ExecutionsRepository } from './executions.repository';
import type { LocalEnds } from './local-ends';

type Flow = workflowEngine.Flow;
type FlowEdge = workflowEngine.FlowEdge;
type FlowNode = workflowEngine.FlowNode;

/** Thrown when a run is stopped by shutdown: the job is retried and resumes, the run is not failed. */
export class InterruptedError extends Error {
  constructor() {
    super('The execution was interrupted by a shutdown; it resumes on the next worker');
    this.name = 'InterruptedError';
  }
}

export interface RunOutcome {
  executionId: string;
  workflowId: string;
  status: 'completed' | 'failed';
  durationMs: number;
  result: Record<string, unknown>;
  failure?: ExecutionFailure;
  callbacks: { onComplete?: string; onError?: string };
}

/** A run's component context; `run` says whose it is (what its components may read). */
export type ContextFactory = (
  signal: AbortSignal,
  run: Pick<ExecutionRow, 'id' | 'owner' | 'team' | 'scope'>,
) => Omit<ComponentContext, 'runComponent' | 'signal'>;

/** A workflow's flow by id (workflows never change once stored, so callers may cache it). */
export type FlowSource = (workflowId: string) => Promise<Flow>;

/** What a run needs of its flow, worked out once per workflow rather than once per run or node. */
interface Plan {
  order: string[];
  nodes: Map<string, FlowNode>;
  parents: Map<string, FlowEdge[]>;
  children: Map<string, FlowEdge[]>;
  components: Map<string, ComponentDefinition | undefined>;
}

function planOf(flow: Flow): Plan {
  const graph = graphOf(flow);
  return {
    order: graph.order,
    nodes: new Map(flow.nodes.map((node) => [node.id, node])),
    parents: graph.parents,
    children: graph.children,
    components: new Map(flow.nodes.map((node) => [node.id, componentOf(node.type)])),
  };
}

const MAX_NESTING = 3;

/**
 * Saves the nodes that changed since the last save, in one statement that merges them into the
 * stored map (never the whole execution again), and coalesces: calls made while one write runs
 * share the next one. Nodes of a write that fails are written with the next one.
 */
class StateWriter {
  private chain: Promise<unknown> = Promise.resolve();
  private queued?: Promise<void>;
  private readonly dirty = new Set<string>();

  constructor(
    private readonly state: NodeStates,
    private readonly save: (changed: NodeStates) => Promise<unknown>,
  ) {}

  /** Records that a node's state changed; it is written with the next flush. */
  mark(id: string): void {
    this.dirty.add(id);
  }

  /** The changed nodes, taken out of the dirty set (for a final write that carries them itself). */
  take(): NodeStates {
    const changed: NodeStates = {};
    for (const id of this.dirty) changed[id] = this.state[id];
    this.dirty.clear();
    return changed;
  }

  /** Resolves once no write is running or queued (a failed one included). */
  idle(): Promise<void> {
    return this.chain.then(() => undefined);
  }

  flush(): Promise<void> {
    if (this.queued) return this.queued;
    const next = this.chain.then(async () => {
      this.queued = undefined;
      const changed = this.take();
      if (Object.keys(changed).length === 0) return;
      try {
        await this.save(changed);
      } catch (error) {
        for (const id of Object.keys(changed)) this.dirty.add(id);
        throw error;
      }
    });
    this.queued = next;
    this.chain = next.catch(() => undefined);
    return next;
  }
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(new InterruptedError());
    const timer = setTimeout(() => (signal.removeEventListener('abort', stop), resolve()), ms);
    const stop = () => (clearTimeout(timer), reject(new InterruptedError()));
    signal.addEventListener('abort', stop, { once: true });
  });

/**
 * Runs executions: independent nodes at once, each as soon as its parents are done, templates
 * resolved from upstream outputs, retries per node, and every node's state in Postgres before its
 * dependants start, so a restarted worker resumes without running a completed node again.
 */
export class ExecutionEngine {
  private readonly running = new Map<string, AbortController>();
  /** Plans by flow object: the flow source caches its flows, and a plan lives as long as its flow. */
  private readonly plans = new WeakMap<Flow, Plan>();

  constructor(
    private readonly repository: ExecutionsRepository,
    private readonly flowOf: FlowSource,
    private readonly events: EventBus,
    private readonly contextFor: ContextFactory,
    private readonly logger: Logger,
    private readonly localEnds?: LocalEnds,
    /** Processes a run may end (killed, crashed mid-run) before it is failed instead of picked up again. */
    private readonly maxCrashes = 2,
  ) {}

  private async planFor(workflowId: string): Promise<Plan> {
    const flow = await this.flowOf(workflowId);
    let plan = this.plans.get(flow);
    if (!plan) this.plans.set(flow, (plan = planOf(flow)));
    return plan;
  }

  /** Stops every run of this process (shutdown): their jobs retry elsewhere and resume. */
  abortAll(): void {
    for (const controller of this.running.values()) controller.abort(new InterruptedError());
  }

  get activeRuns(): number {
    return this.running.size;
  }

  async run(executionId: string, outer?: AbortSignal): Promise<RunOutcome | undefined> {
    const controller = new AbortController();
    const abort = () => controller.abort(new InterruptedError());
    outer?.addEventListener('abort', abort, { once: true });
    this.running.set(executionId, controller);
    try {
      return await this.execute(executionId, controller.signal);
    } catch (error) {
      // The process is alive: this pick-up did not end it, so it is not counted against the run.
      await this.repository.release(executionId).catch((release: unknown) => this.logger.warn({ err: release, executionId }, 'pick-up not released'));
      throw error;
    } finally {
      this.running.delete(executionId);
      outer?.removeEventListener('abort', abort);
    }
  }

  private async execute(executionId: string, signal: AbortSignal): Promise<RunOutcome | undefined> {
    const execution = await this.repository.startRun(executionId);
    if (!execution || execution.status === 'completed' || execution.status === 'failed') return undefined;
    // Earlier pick-ups that never came back ended their process: past the limit the run is poison.
    const crashes = execution.processingAttempts - 1;
    if (crashes >= this.maxCrashes) return this.failPoisoned(execution, crashes);
    const plan = await this.planFor(execution.workflowId);
    const inputs = (execution.inputs ?? {}) as Record<string, Record<string, unknown>>;
    const state = (execution.nodes ?? {}) as unknown as NodeStates;
    const reset: string[] = [];
    for (const id of plan.order) {
      const current = state[id];
      // A node that was running when the previous worker stopped never completed: it runs again.
      if (!current || current.status === 'running') {
        state[id] = { status: 'pending', attempts: current?.attempts ?? 0 };
        if (current) reset.push(id);
      }
    }
    const topic = `execution:${executionId}`;
    const publish = (event: Omit<StreamEvent, 'timestamp'> & { timestamp?: string }) =>
      void this.events.publish(topic, { executionId, timestamp: new Date().toISOString(), ...event } as unknown as StreamEvent);
    const writer = new StateWriter(state, (changed) => this.repository.saveNodes(executionId, changed));
    // Nodes reset from `running` (a worker that stopped) are written with the first save.
    for (const id of reset) writer.mark(id);

    const outputs: Record<string, Record<string, unknown>> = {};
    for (const [id, node] of Object.entries(state)) if (node.status === 'completed' && node.output) outputs[id] = node.output;
    const context = this.contextFor(signal, execution);
    const runComponent =
      (depth: number) =>
      async (type: string, data: Record<string, unknown>): Promise<ComponentResult> => {
        if (depth > MAX_NESTING) throw new NodeError('INVALID_INPUT', `Components nest at most ${MAX_NESTING} deep`, false);
        const component = componentOf(type);
        if (!component) throw new NodeError('INVALID_INPUT', `Unknown component type ${type}`, false);
        const parsed = component.input.safeParse(data);
        if (!parsed.success) throw new NodeError('INVALID_INPUT', `${type}: ${z.prettifyError(parsed.error)}`, false);
        return component.run(parsed.data, { ...context, signal, runComponent: runComponent(depth + 1) });
      };

    const edgeActive = (edge: FlowEdge) => {
      const source = state[edge.source];
      if (source.status !== 'completed') return false;
      if (!edge.sourceHandle) return true;
      return Boolean(source.output?.result) === (edge.sourceHandle === 'true');
    };

    let failure: ExecutionFailure | undefined;
    let interrupted = false;
    const inFlight = new Set<string>();

    const settled = (edge: FlowEdge) => state[edge.source].status === 'completed' || state[edge.source].status === 'skipped';
    const run = runComponent(1);

    await new Promise<void>((resolve) => {
      // `candidates`: the nodes that may have become ready (every node at first, then the children
      // of the node that just ended), so each completion looks at its children only.
      const pump = (candidates: readonly string[]) => {
        let changed = false;
        if (!failure && !interrupted) {
          const queue = [...candidates];
          for (let index = 0; index < queue.length; index++) {
            const id = queue[index];
            const node = state[id];
            if (node.status !== 'pending' || inFlight.has(id)) continue;
            const parents = plan.parents.get(id) ?? [];
            if (!parents.every(settled)) continue;
            if (parents.length > 0 && !parents.some(edgeActive)) {
              node.status = 'skipped';
              writer.mark(id);
              changed = true;
              publish({ type: 'node-skipped', nodeId: id });
              for (const edge of plan.children.get(id) ?? []) queue.push(edge.target);
              continue;
            }
            inFlight.add(id);
            const pure = plan.components.get(id)?.pure === true;
            writer.mark(id);
            if (!pure) changed = true;
            void this.runNode(plan.nodes.get(id) as FlowNode, node, inputs[id], outputs, run, signal, publish).then(async (completed) => {
              if (completed) outputs[id] = node.output ?? {};
              writer.mark(id);
              // A node with effects is saved as completed before anything depends on it, so a
              // restart never runs it again; a pure node's save rides along with the next one.
              // A pure node's completion is saved with the next save (or the final one).
              if (!pure || !completed) {
                try {
                  await writer.flush();
                } catch (error) {
                  this.logger.error({ err: error, executionId }, 'execution state not saved');
                  interrupted = true;
                }
              }
              inFlight.delete(id);
              if (completed) publish({ type: 'node-completed', nodeId: id, duration: node.duration, output: node.output, timestamp: node.completedAt });
              else if (node.status === 'failed' && node.error) {
                failure ??= { nodeId: id, attempt: node.attempts, message: node.error.message, code: node.error.code, retryable: node.error.retryable };
                publish({ type: 'node-failed', nodeId: id, attempt: node.attempts, error: node.error, timestamp: node.completedAt });
              } else interrupted = true;
              pump((plan.children.get(id) ?? []).map((edge) => edge.target));
            });
          }
        }
        // Started and skipped nodes are recorded too (one write for all of them), so a late subscriber sees them.
        if (changed && inFlight.size > 0)
          void writer.flush().catch((error: unknown) => this.logger.warn({ err: error, executionId }, 'execution state not saved'));
        if (inFlight.size === 0) resolve();
      };
      pump(plan.order);
    });

    if (interrupted || signal.aborted) {
      await writer.flush().catch(() => undefined);
      throw new InterruptedError();
    }
    const completedAt = new Date();
    const durationMs = completedAt.getTime() - execution.startedAt.getTime();
    const result = Object.fromEntries([...plan.nodes.keys()].filter((id) => state[id].status === 'completed').map((id) => [id, state[id].output ?? {}]));
    // The final write merges the nodes not saved yet, after any write still running.
    await writer.idle();
    await this.repository.finish(executionId, { nodes: writer.take(), result, failure, completedAt, durationMs });
    this.localEnds?.ended({
      ...execution,
      status: failure ? 'failed' : 'completed',
      nodes: state,
      result,
      error: failure ?? null,
      retryable: failure ? failure.retryable : null,
      completedAt,
      durationMs,
    });
    if (failure)
      publish({
        type: 'workflow-failed',
        status: 'failed',
        duration: durationMs,
        error: failure,
        retryable: failure.retryable,
        timestamp: completedAt.toISOString(),
      });
    else publish({ type: 'workflow-completed', duration: durationMs, result, timestamp: completedAt.toISOString() });
    return {
      executionId,
      workflowId: execution.workflowId,
      status: failure ? 'failed' : 'completed',
      durationMs,
      result,
      failure,
      callbacks: execution.callbacks as RunOutcome['callbacks'],
    };
  }

  /**
   * A run whose queue job BullMQ gave up on after its workers died mid-job (stalled past its limit):
   * failed as poison if Postgres still has it unfinished. Undefined when there was nothing to fail.
   */
  async abandon(executionId: string): Promise<RunOutcome | undefined> {
    const execution = await this.repository.find(executionId);
    if (!execution || execution.status === 'completed' || execution.status === 'failed') return undefined;
    return this.failPoisoned(execution, execution.processingAttempts);
  }

  /**
   * Fails a run that ended the processes that picked it up, `crashes` times, rather than letting it
   * end another: the nodes that were running when the last one died are named and failed with it.
   */
  private async failPoisoned(execution: ExecutionRow, crashes: number): Promise<RunOutcome> {
    const state = (execution.nodes ?? {}) as unknown as NodeStates;
    const suspects = Object.keys(state).filter((id) => state[id].status === 'running');
    const where = suspects.length ? ` while node${suspects.length > 1 ? 's' : ''} ${suspects.join(', ')} ran` : '';
    const message = `Processing this execution ended its worker process ${crashes} time${crashes === 1 ? '' : 's'} (killed or crashed${where}); it is failed rather than picked up again`;
    const completedAt = new Date();
    const failure: ExecutionFailure = { nodeId: suspects[0] ?? '', attempt: state[suspects[0]]?.attempts ?? 0, message, code: 'POISON_RUN', retryable: false };
    const nodes: NodeStates = {};
    for (const id of suspects)
      nodes[id] = { ...state[id], status: 'failed', completedAt: completedAt.toISOString(), error: { code: 'POISON_RUN', message, retryable: false } };
    const result = Object.fromEntries(
      Object.entries(state)
        .filter(([, node]) => node.status === 'completed')
        .map(([id, node]) => [id, node.output ?? {}]),
    );
    const durationMs = completedAt.getTime() - execution.startedAt.getTime();
    await this.repository.finish(execution.id, { nodes, result, failure, completedAt, durationMs });
    this.logger.error({ executionId: execution.id, crashes, nodes: suspects }, 'poison execution failed');
    const topic = `execution:${execution.id}`;
    for (const id of suspects)
      void this.events.publish(topic, {
        type: 'node-failed',
        executionId: execution.id,
        nodeId: id,
        attempt: nodes[id].attempts,
        error: nodes[id].error,
        timestamp: completedAt.toISOString(),
      } as unknown as StreamEvent);
    void this.events.publish(topic, {
      type: 'workflow-failed',
      executionId: execution.id,
      status: 'failed',
      duration: durationMs,
      error: failure,
      retryable: false,
      timestamp: completedAt.toISOString(),
    } as unknown as StreamEvent);
    return {
      executionId: execution.id,
      workflowId: execution.workflowId,
      status: 'failed',
      durationMs,
      result,
      failure,
      callbacks: execution.callbacks as RunOutcome['callbacks'],
    };
  }

  /** Runs one node with its retries; true when it completed, false when it failed or was interrupted. */
  private async runNode(
    node: FlowNode,
    state: NodeState,
    overrides: Record<string, unknown> | undefined,
    outputs: Record<string, Record<string, unknown>>,
    run: (type: string, data: Record<string, unknown>) => Promise<ComponentResult>,
    signal: AbortSignal,
    publish: (event: Omit<StreamEvent, 'timestamp'> & { timestamp?: string }) => void,
  ): Promise<boolean> {
    const started = Date.now();
    state.status = 'running';
    state.startedAt = new Date(started).toISOString();
    state.attempts = 0;
    publish({ type: 'node-started', nodeId: node.id, timestamp: state.startedAt });
    const retry = node.retry?.enabled ? node.retry : { maxAttempts: 1, initialDelay: 0 };
    const data = resolveTemplates({ ...node.data, ...overrides }, outputs) as Record<string, unknown>;
    for (let attempt = 1; ; attempt++) {
      state.attempts = attempt;
      try {
        const result = await run(node.type, data);
        if (signal.aborted) throw new InterruptedError();
        Object.assign(state, { status: 'completed', output: result.output, completedAt: new Date().toISOString(), duration: Date.now() - started });
        if (result.modelUsed) state.modelUsed = result.modelUsed;
        if (result.tokensUsed !== undefined) state.tokensUsed = result.tokensUsed;
        if (result.entityCreated) state.entityCreated = result.entityCreated;
        return true;
      } catch (error) {
        if (signal.aborted || error instanceof InterruptedError) {
          state.status = 'pending';
          return false;
        }
        const failure = toNodeError(error);
        if (failure.code === 'INTERNAL_ERROR') this.logger.error({ err: error, nodeId: node.id }, 'node failed unexpectedly');
        if (!failure.retryable || attempt >= retry.maxAttempts) {
          Object.assign(state, {
            status: 'failed',
            completedAt: new Date().toISOString(),
            duration: Date.now() - started,
            error: { code: failure.code, message: failure.message, retryable: failure.retryable },
          });
          return false;
        }
        const delay = backoffDelay(retry.initialDelay, attempt);
        publish({ type: 'node-retrying', nodeId: node.id, attempt, nextAttemptIn: delay, error: { code: failure.code, message: failure.message } });
        try {
          await sleep(delay, signal);
        } catch {
          state.status = 'pending';
          return false;
        }
      }
    }
  }
}
