import { randomUUID } from 'node:crypto';
import type { Db } from '../database';
import type { Prisma } from '../generated/prisma/client';

export type AgentRow = Prisma.AgentGetPayload<{ include: { steps: true } }>;
const withSteps = { steps: { orderBy: [{ startedAt: 'asc' as const }, { position: 'asc' as const }] } };

/** The gateway's records of agents and of every saga step run on them. */
export class AgentsRepository {
  constructor(private readonly db: Db) {}

  create(data: {
    namespace: string;
    name: string;
    version: string;
    ownerSub: string;
    manifest: object;
    deployment: object;
    endpoint?: string;
  }): Promise<AgentRow> {
    return this.db.agent.create({ data: { ...data, status: 'creating' }, include: withSteps });
  }

  find(id: string): Promise<AgentRow | null> {
    return this.db.agent.findUnique({ where: { id }, include: withSteps });
  }

  findByName(namespace: string, name: string) {
    return this.db.agent.findUnique({ where: { namespace_name: { namespace, name } } });
  }

  async list(filter: { namespace?: string; status?: string; ownerSub?: string }, page: { limit: number; offset: number }) {
    const where = { namespace: filter.namespace, status: filter.status, ownerSub: filter.ownerSub };
    const [items, total] = await Promise.all([
      this.db.agent.findMany({ where, include: withSteps, orderBy: [{ createdAt: 'desc' }, { id: 'asc' }], take: page.limit, skip: page.offset }),
      this.db.agent.count({ where }),
    ]);
    return { items, total };
  }

  update(
    id: string,
    data: { status?: string; refs?: object; error?: string | null; manifest?: object; deployment?: object; version?: string; endpoint?: string | null },
  ) {
    return this.db.agent.update({ where: { id }, data, include: withSteps });
  }

  delete(id: string) {
    return this.db.agent.delete({ where: { id } });
  }

  startStep(agentId: string, operation: string, step: string, position: number) {
    return this.db.agentStep.create({ data: { agentId, operation, step, position, status: 'pending' } });
  }

  finishStep(id: string, status: string, result: { detail?: object; error?: string } = {}) {
    return this.db.agentStep.update({ where: { id }, data: { status, detail: result.detail, error: result.error, finishedAt: new Date() } });
  }

  /** Forgets earlier runs' steps (a failed create retried, an update started). */
  clearSteps(agentId: string, operation?: string) {
    return this.db.agentStep.deleteMany({ where: { agentId, operation } });
  }

  /** The hot path of execute, in plain SQL (a Prisma model query costs milliseconds to plan). */
  async findForExecute(id: string): Promise<{ id: string; status: string; refs: unknown } | undefined> {
    const rows = await this.db.$queryRaw<Array<{ id: string; status: string; refs: unknown }>>`SELECT "id", "status", "refs" FROM "Agent" WHERE "id" = ${id}`;
    return rows[0];
  }

  async createExecution(data: {
    id?: string;
    agentId: string;
    callerSub: string;
    messageId: string;
    input: object;
    traceId?: string;
  }): Promise<{ id: string }> {
    const id = data.id ?? randomUUID();
    await this.db.$executeRaw`INSERT INTO "Execution" ("id", "agentId", "callerSub", "messageId", "status", "input", "traceId")
      VALUES (${id}, ${data.agentId}, ${data.callerSub}, ${data.messageId}, 'sent', ${JSON.stringify(data.input)}::jsonb, ${data.traceId ?? null})`;
    return { id };
  }

  findExecution(id: string) {
    return this.db.execution.findUnique({ where: { id } });
  }

  /** Records an execution's end once: a late or repeated reply changes nothing. */
  async finishExecution(id: string, status: string, data: { output?: unknown; error?: string }): Promise<boolean> {
    const output = data.output === undefined ? null : JSON.stringify(data.output);
    const count = await this.db
      .$executeRaw`UPDATE "Execution" SET "status" = ${status}, "output" = ${output}::jsonb, "error" = ${data.error ?? null}, "finishedAt" = now()
      WHERE "id" = ${id} AND "status" = 'sent'`;
    return count === 1;
  }
}
