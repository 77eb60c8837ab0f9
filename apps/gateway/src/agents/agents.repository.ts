import type { Pool } from 'pg';
import type { Db } from '../database';
import type { Prisma } from '../generated/prisma/client';

export type AgentRow = Prisma.AgentGetPayload<{ include: { steps: true } }>;
const withSteps = { steps: { orderBy: [{ startedAt: 'asc' as const }, { position: 'asc' as const }] } };

/**
 * The gateway's records of agents and of every saga step run on them. The execute hot path goes
 * through a plain pg pool bound like Prisma's (`sqlPool`): even a Prisma raw query costs several
 * times the CPU of its statement.
 */
export class AgentsRepository {
  constructor(
    private readonly db: Db,
    private readonly sql: Pool,
  ) {}

  create(data: {
    namespace: string;
    name: string;
    version: string;
    ownerSub: string;
    team: string | null;
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

  /** `scope`: the caller's read scope as a `where` fragment (`readScopeWhere`). */
  async list(filter: { namespace?: string; status?: string }, scope: Prisma.AgentWhereInput, page: { limit: number; offset: number }) {
    const where: Prisma.AgentWhereInput = { AND: [{ namespace: filter.namespace, status: filter.status }, scope] };
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

  /** What execute needs of an agent: who owns it, its state and where the mesh knows it. */
  async findForExecution(id: string): Promise<{ id: string; status: string; refs: unknown; ownerSub: string; team: string | null } | null> {
    const { rows } = await this.sql.query<{ id: string; status: string; refs: unknown; ownerSub: string; team: string | null }>({
      name: 'gateway-find-for-execution',
      text: `SELECT "id", "status", "refs", "ownerSub", "team" FROM "Agent" WHERE "id" = $1`,
      values: [id],
    });
    return rows[0] ?? null;
  }

  /**
   * Records the new execution as `sent` when the agent is (still) active, in one statement that
   * also answers the agent's state (`status` undefined when the agent is gone).
   */
  async startExecution(data: {
    id: string;
    agentId: string;
    callerSub: string;
    messageId: string;
    input: object;
    traceId?: string;
  }): Promise<{ status?: string; recorded: boolean }> {
    const { rows } = await this.sql.query<{ id: string; status: string; refs: unknown; recorded: boolean }>({
      name: 'gateway-start-execution',
      text: `WITH agent AS (SELECT "id", "status", "refs" FROM "Agent" WHERE "id" = $2),
        recorded AS (
          INSERT INTO "Execution" ("id", "agentId", "callerSub", "messageId", "status", "input", "traceId")
          SELECT $1, "id", $3, $4, 'sent', $5::jsonb, $6 FROM agent WHERE "status" = 'active'
          RETURNING "id")
        SELECT "id", "status", "refs", EXISTS (SELECT 1 FROM recorded) AS "recorded" FROM agent`,
      values: [data.id, data.agentId, data.callerSub, data.messageId, JSON.stringify(data.input), data.traceId ?? null],
    });
    return rows[0] ?? { recorded: false };
  }

  findExecution(id: string) {
    return this.db.execution.findUnique({ where: { id } });
  }

  /** Records an execution's end once: a late or repeated reply changes nothing. */
  async finishExecution(id: string, status: string, data: { output?: unknown; error?: string }): Promise<boolean> {
    const { rowCount } = await this.sql.query({
      name: 'gateway-finish-execution',
      text: `UPDATE "Execution" SET "status" = $2, "output" = $3::jsonb, "error" = $4, "finishedAt" = now() WHERE "id" = $1 AND "status" = 'sent'`,
      values: [id, status, data.output === undefined ? null : JSON.stringify(data.output), data.error ?? null],
    });
    return rowCount === 1;
  }
}
