import type { MeshClient } from '@platform/clients';
import type { gateway } from '@platform/contracts';
import { notFound, readScopeWhere } from '@platform/http';
import type { TypedQueue } from '@platform/queues';
import type { z } from 'zod';
import { owned, rules, scopeColumns } from '../access/ownership';
import type { Caller } from '../agents/agents.service';
import type { ReplyHub } from '../replies/reply-hub';
import type { studioTaskQueue } from './studio.queue';
import type { StudioRepository } from './studio.repository';

type SessionRow = NonNullable<Awaited<ReturnType<StudioRepository['findSession']>>>;
type TaskRow = SessionRow['tasks'][number];

export const taskView = (task: TaskRow) => ({
  id: task.id,
  sessionId: task.sessionId,
  instruction: task.instruction,
  status: task.status as z.infer<typeof gateway.StudioTaskStatus>,
  agentId: task.agentId,
  result: (task.result as { output?: unknown } | null)?.output ?? null,
  error: task.error,
  createdAt: task.createdAt.toISOString(),
  updatedAt: task.updatedAt.toISOString(),
});

export const sessionView = (session: SessionRow) => ({
  id: session.id,
  name: session.name,
  repository: session.repository,
  capability: session.capability,
  status: session.status,
  owner: session.ownerSub,
  team: session.team,
  tasks: session.tasks.map(taskView),
  createdAt: session.createdAt.toISOString(),
});

/**
 * Remote coding sessions: each task is queued (BullMQ `gateway.studio-tasks`), sent through the
 * mesh to a coding agent of the session's capability with a reply URL, and completed by its reply.
 */
export class StudioService {
  constructor(
    private readonly repository: StudioRepository,
    private readonly deps: {
      mesh: MeshClient;
      replies: ReplyHub;
      queue: TypedQueue<typeof studioTaskQueue.payload>;
      serviceToken: () => Promise<string | undefined>;
      taskTimeoutMs: number;
    },
  ) {}

  async create(caller: Caller, body: z.infer<typeof gateway.CreateSessionBody>) {
    const { team, ...session } = body;
    const owner = rules.session.ownerFor(caller, team);
    return sessionView(await this.repository.createSession({ ownerSub: owner.owner, team: owner.team, ...session }));
  }

  async list(caller: Caller, page: { limit: number; offset: number }) {
    const { items, total } = await this.repository.listSessions(readScopeWhere(rules.session.readScope(caller), scopeColumns), page);
    return { items: items.map(sessionView), total, limit: page.limit, offset: page.offset };
  }

  async get(caller: Caller, id: string) {
    return sessionView(rules.session.readable(caller, owned(await this.repository.findSession(id)), id));
  }

  /** Adding a task runs the session's coding agent: its owner, its team's editors or studio:admin. */
  async addTask(caller: Caller, sessionId: string, instruction: string) {
    rules.session.writable(caller, owned(await this.repository.findSession(sessionId)), sessionId);
    const task = await this.repository.createTask(sessionId, instruction);
    await this.deps.queue.add('run', { taskId: task.id }, { jobId: task.id });
    return taskView(task);
  }

  async getTask(caller: Caller, sessionId: string, taskId: string) {
    const session = rules.session.readable(caller, owned(await this.repository.findSession(sessionId)), sessionId);
    const task = session.tasks.find((item) => item.id === taskId);
    if (!task) throw notFound(`No task ${taskId} in session ${sessionId}`);
    return taskView(task);
  }

  /** The queue's processor: hands the task to a coding agent through the mesh. */
  async run(taskId: string): Promise<void> {
    const task = await this.repository.findTask(taskId);
    if (!task || !['queued', 'running'].includes(task.status)) return;
    const token = await this.deps.serviceToken();
    try {
      const sent = await this.deps.mesh.send(
        {
          capability: task.session.capability,
          message_id: `studio-task-${task.id}`,
          from: 'gateway',
          ttl_ms: this.deps.taskTimeoutMs,
          payload: {
            type: 'coding-task',
            task_id: task.id,
            session_id: task.sessionId,
            repository: task.session.repository,
            instruction: task.instruction,
            reply_to: this.deps.replies.replyUrl('task', task.id, this.deps.taskTimeoutMs),
          },
        },
        { bearer: token },
      );
      await this.repository.transition(task.id, ['queued', 'running'], { status: 'running', messageId: sent.message_id, agentId: sent.agent_id });
    } catch (error) {
      // 4xx from the mesh (no agent of that capability, refused) will not get better: fail the task.
      const status = (error as { upstreamStatus?: number }).upstreamStatus;
      if (status !== undefined && status < 500 && status !== 429) {
        await this.repository.transition(task.id, ['queued', 'running'], { status: 'failed', error: (error as Error).message, finishedAt: new Date() });
        return;
      }
      throw error;
    }
  }

  async failTask(taskId: string, error: string): Promise<void> {
    await this.repository.transition(taskId, ['queued', 'running'], { status: 'failed', error, finishedAt: new Date() });
  }

  /** The coding agent's reply. */
  async reply(taskId: string, reply: { output?: unknown; error?: string }): Promise<boolean> {
    return this.repository.transition(taskId, ['queued', 'running'], {
      status: reply.error ? 'failed' : 'completed',
      result: reply.output === undefined ? undefined : { output: reply.output as object },
      error: reply.error,
      finishedAt: new Date(),
    });
  }
}
