import { bullmqConnection } from '@platform/data';
import { ApiError, serviceUnavailable } from '@platform/http';
import { defineQueue, type QueueDefinition, type TypedQueue } from '@platform/queues';
import type { QueueRegistry } from '@platform/service-kit';
import { type Logger } from '@platform/telemetry';
import { QueueEvents } from 'bullmq';
import { z } from 'zod';
import type { BatchResult, McpOperations, ToolCallResult } from './mcp-operations';

export const OperationJob = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('check'), connectionId: z.string().uuid() }),
  z.object({ kind: z.literal('batch'), connectionIds: z.array(z.string().uuid()), timeout: z.number().int().optional() }),
  z.object({
    kind: z.literal('tool-call'),
    connectionId: z.string().uuid(),
    tool: z.string(),
    arguments: z.record(z.string(), z.unknown()),
    timeout: z.number().int().optional(),
  }),
]);
type OperationJob = z.infer<typeof OperationJob>;

/** A job's answer: the value, or the API error to answer with (kept as data so it survives the queue). */
type Answer = { value: unknown } | { error: { status: number; type: ApiError['type']; code: string; message: string; details?: unknown } };

/** Longest a forwarded operation waits for a worker beyond its own timeout. */
const QUEUE_SLACK_MS = 15_000;

/**
 * On-demand checks and tool calls through BullMQ (queue `<MCP_HEALTH_QUEUE>.on-demand`): the API
 * role adds a job and waits for its answer; workers run it with their own sessions. The queue and
 * its worker are the bootstrap's (`infra.queues`), which also closes them on shutdown.
 */
export class OperationsQueue implements McpOperations {
  private readonly definition: QueueDefinition<typeof OperationJob>;
  private readonly queue: TypedQueue<typeof OperationJob>;
  private events?: QueueEvents;

  constructor(
    private readonly name: string,
    private readonly queues: QueueRegistry,
    private readonly redisUrl: string,
    private readonly logger: Logger,
  ) {
    this.definition = defineQueue(name, OperationJob);
    this.queue = queues.producer(this.definition);
  }

  /** Role `api`: listen for answers. */
  async startClient(): Promise<void> {
    // QueueEvents blocks on a stream read and waits out reconnects, as a worker does.
    this.events = new QueueEvents(this.name, { connection: bullmqConnection(this.redisUrl, 'worker') });
    await this.events.waitUntilReady();
  }

  /** Roles `all` and `worker`: answer the API replicas' jobs with the local operations. */
  startWorker(local: McpOperations, concurrency: number): void {
    const worker = this.queues.process(
      this.definition,
      async (job): Promise<Answer> => {
        try {
          return { value: await this.runLocally(local, job) };
        } catch (error) {
          if (error instanceof ApiError)
            return { error: { status: error.status, type: error.type, code: error.code, message: error.message, details: error.details } };
          throw error;
        }
      },
      { concurrency },
    );
    worker?.on('failed', (job, error) => this.logger.warn({ jobId: job?.id, err: error }, 'forwarded MCP operation failed'));
  }

  private runLocally(local: McpOperations, job: OperationJob): Promise<unknown> {
    if (job.kind === 'check') return local.check(job.connectionId);
    if (job.kind === 'batch') return local.batch(job.connectionIds, job.timeout);
    return local.callTool(job.connectionId, job.tool, job.arguments, job.timeout);
  }

  private async forward(job: OperationJob, waitMs: number): Promise<unknown> {
    if (!this.events) throw new Error('OperationsQueue.startClient() was not called');
    const added = await this.queue.add(job.kind, job, { attempts: 1, removeOnComplete: true, removeOnFail: { count: 100 } });
    let answer: Answer;
    try {
      answer = (await added.waitUntilFinished(this.events, waitMs + QUEUE_SLACK_MS)) as Answer;
    } catch (error) {
      const message = (error as Error).message;
      if (/timed out/i.test(message)) throw serviceUnavailable('No registry worker answered in time; is one running (--role worker)?', { jobId: added.id });
      throw new ApiError(502, 'api_error', 'mcp_error', `The MCP operation failed on the worker: ${message}`);
    }
    if ('error' in answer) throw new ApiError(answer.error.status, answer.error.type, answer.error.code, answer.error.message, answer.error.details);
    return answer.value;
  }

  async check(connectionId: string) {
    return (await this.forward({ kind: 'check', connectionId }, 120_000)) as Awaited<ReturnType<McpOperations['check']>>;
  }

  async batch(connectionIds: string[], timeout: number | undefined) {
    return (await this.forward({ kind: 'batch', connectionIds, ...(timeout !== undefined && { timeout }) }, 300_000)) as BatchResult;
  }

  async callTool(connectionId: string, tool: string, args: Record<string, unknown>, timeout: number | undefined) {
    return (await this.forward(
      { kind: 'tool-call', connectionId, tool, arguments: args, ...(timeout !== undefined && { timeout }) },
      timeout ?? 300_000,
    )) as ToolCallResult;
  }

  /** Stops listening for answers (the bootstrap closes the queue and the worker). */
  async close(): Promise<void> {
    await this.events?.close();
  }
}
