import { Prisma } from '../generated/prisma/client';
import type { Db } from '../database';
import type { ExecutionFailure, NodeStates } from './execution-state';

export interface ExecutionRow {
  id: string;
  workflowId: string;
  status: string;
  inputs: unknown;
  nodes: unknown;
  result: unknown;
  error: unknown;
  retryable: boolean | null;
  callbacks: unknown;
  startedAt: Date;
  completedAt: Date | null;
  durationMs: number | null;
}

const COLUMNS = Prisma.sql`id::text AS id, "workflowId"::text AS "workflowId", status, inputs, nodes, result, error, retryable, callbacks, "startedAt", "completedAt", "durationMs"`;

export class ExecutionsRepository {
  constructor(private readonly db: Db) {}

  async create(data: { workflowId: string; inputs: object; callbacks: object; requestedBy: string }): Promise<{ id: string; startedAt: Date }> {
    const [row] = await this.db.$queryRaw<Array<{ id: string; startedAt: Date }>>`
      INSERT INTO "Execution" (id, "workflowId", inputs, callbacks, "requestedBy")
      VALUES (gen_random_uuid(), ${data.workflowId}::uuid, ${JSON.stringify(data.inputs)}::jsonb, ${JSON.stringify(data.callbacks)}::jsonb, ${data.requestedBy})
      RETURNING id::text AS id, "startedAt"`;
    return row;
  }

  async find(id: string): Promise<ExecutionRow | undefined> {
    const [row] = await this.db.$queryRaw<ExecutionRow[]>`SELECT ${COLUMNS} FROM "Execution" WHERE id = ${id}::uuid`;
    return row;
  }

  /** Marks a queued run running and returns it with its workflow's flow (one statement). */
  async startRun(id: string): Promise<(ExecutionRow & { flow: unknown }) | undefined> {
    const [row] = await this.db.$queryRaw<Array<ExecutionRow & { flow: unknown }>>`
      UPDATE "Execution" SET status = CASE WHEN status = 'queued' THEN 'running' ELSE status END WHERE id = ${id}::uuid
      RETURNING ${COLUMNS}, (SELECT flow FROM "Workflow" w WHERE w.id = "Execution"."workflowId") AS flow`;
    return row;
  }

  // The hot path of a run (several writes per execution) is plain SQL: no query planning per call.
  saveNodes(id: string, nodes: NodeStates) {
    return this.db.$executeRaw`UPDATE "Execution" SET nodes = ${JSON.stringify(nodes)}::jsonb WHERE id = ${id}::uuid`;
  }

  finish(id: string, outcome: { nodes: NodeStates; result: object; failure?: ExecutionFailure; completedAt: Date; durationMs: number }) {
    const failure = outcome.failure ? JSON.stringify(outcome.failure) : null;
    return this.db.$executeRaw`UPDATE "Execution" SET status = ${outcome.failure ? 'failed' : 'completed'}, nodes = ${JSON.stringify(outcome.nodes)}::jsonb,
      result = ${JSON.stringify(outcome.result)}::jsonb, error = ${failure}::jsonb, retryable = ${outcome.failure ? outcome.failure.retryable : null}::boolean,
      "completedAt" = ${outcome.completedAt}, "durationMs" = ${outcome.durationMs} WHERE id = ${id}::uuid`;
  }

  async counts(since: Date) {
    const [active, queued, totalToday] = await Promise.all([
      this.db.execution.count({ where: { status: 'running' } }),
      this.db.execution.count({ where: { status: 'queued' } }),
      this.db.execution.count({ where: { createdAt: { gte: since } } }),
    ]);
    return { active, queued, totalToday };
  }

  /** Executions left queued or running (a crash, a restart): the recovery sweep re-enqueues them. */
  unfinished(olderThan: Date, limit: number) {
    return this.db.execution.findMany({
      where: { status: { in: ['queued', 'running'] }, batchId: null, createdAt: { lt: olderThan } },
      select: { id: true },
      take: limit,
    });
  }
}
