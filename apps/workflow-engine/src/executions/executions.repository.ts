import { readScopeWhere, type ReadScope } from '@platform/http';
import type { Pool } from 'pg';
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
  owner: string | null;
  team: string | null;
  /** What the run may read for its starter (see the schema); null for runs recorded before owners were. */
  scope: ReadScope | null;
  /** Pick-ups not handed back (this one included, once started): see `startRun`. */
  processingAttempts: number;
  traceId: string | null;
}

// Timestamps are stored without a zone, in UTC (as Prisma writes them): read back as UTC instants
// and written from ISO strings, whatever the zone of this process or of the session.
const COLUMNS = `id::text AS id, "workflowId"::text AS "workflowId", status, inputs, nodes, result, error, retryable, callbacks,
  "startedAt" AT TIME ZONE 'UTC' AS "startedAt", "completedAt" AT TIME ZONE 'UTC' AS "completedAt", "durationMs", owner, team, scope, "processingAttempts", "traceId"`;

/**
 * Executions in Postgres. The hot path of a run (create, start, finish, read: four statements per
 * execution) goes through a plain pg pool as named prepared statements, parsed once per connection;
 * through Prisma each cost several times the statement itself. The rest uses the Prisma client.
 */
export class ExecutionsRepository {
  constructor(
    private readonly db: Db,
    private readonly sql: Pool,
  ) {}

  async create(data: {
    workflowId: string;
    inputs: object;
    callbacks: object;
    requestedBy: string;
    owner: string;
    team: string | null;
    scope: ReadScope;
    traceId: string | null;
  }): Promise<{ id: string; startedAt: Date }> {
    const { rows } = await this.sql.query<{ id: string; startedAt: Date }>({
      name: 'workflow-engine.execution.create',
      text: `INSERT INTO "Execution" (id, "workflowId", inputs, callbacks, "requestedBy", owner, team, scope, "traceId")
        VALUES (gen_random_uuid(), $1::uuid, $2::jsonb, $3::jsonb, $4, $5, $6, $7::jsonb, $8)
        RETURNING id::text AS id, "startedAt" AT TIME ZONE 'UTC' AS "startedAt"`,
      values: [
        data.workflowId,
        JSON.stringify(data.inputs),
        JSON.stringify(data.callbacks),
        data.requestedBy,
        data.owner,
        data.team,
        JSON.stringify(data.scope),
        data.traceId,
      ],
    });
    return rows[0];
  }

  async find(id: string): Promise<ExecutionRow | undefined> {
    const { rows } = await this.sql.query<ExecutionRow>({
      name: 'workflow-engine.execution.find',
      text: `SELECT ${COLUMNS} FROM "Execution" WHERE id = $1::uuid`,
      values: [id],
    });
    return rows[0];
  }

  /**
   * Marks a queued run running and counts this pick-up, before anything of it runs (one
   * statement): a process that dies while running it never takes the count back (`release`), so
   * the count says how many processes the run ended.
   */
  async startRun(id: string): Promise<ExecutionRow | undefined> {
    const { rows } = await this.sql.query<ExecutionRow>({
      name: 'workflow-engine.execution.start',
      text: `UPDATE "Execution" SET status = CASE WHEN status = 'queued' THEN 'running' ELSE status END,
        "processingAttempts" = "processingAttempts" + CASE WHEN status IN ('queued', 'running') THEN 1 ELSE 0 END
        WHERE id = $1::uuid RETURNING ${COLUMNS}`,
      values: [id],
    });
    return rows[0];
  }

  /** Takes a pick-up back: its processing stopped with the process alive (a shutdown, an error). */
  async release(id: string): Promise<void> {
    await this.sql.query({
      name: 'workflow-engine.execution.release',
      text: `UPDATE "Execution" SET "processingAttempts" = GREATEST("processingAttempts" - 1, 0) WHERE id = $1::uuid AND status IN ('queued', 'running')`,
      values: [id],
    });
  }

  /** Merges the given nodes into the stored map, in one statement (all transitions since the last save). */
  async saveNodes(id: string, nodes: NodeStates): Promise<void> {
    await this.sql.query({
      name: 'workflow-engine.execution.save-nodes',
      text: `UPDATE "Execution" SET nodes = nodes || $2::jsonb WHERE id = $1::uuid`,
      values: [id, JSON.stringify(nodes)],
    });
  }

  /** Ends a run; `nodes`, the nodes not saved yet, are merged into the stored map. */
  async finish(id: string, outcome: { nodes: NodeStates; result: object; failure?: ExecutionFailure; completedAt: Date; durationMs: number }): Promise<void> {
    await this.sql.query({
      name: 'workflow-engine.execution.finish',
      text: `UPDATE "Execution" SET status = $2, nodes = nodes || $3::jsonb, result = $4::jsonb, error = $5::jsonb, retryable = $6::boolean,
        "completedAt" = $7::timestamptz AT TIME ZONE 'UTC', "durationMs" = $8 WHERE id = $1::uuid`,
      values: [
        id,
        outcome.failure ? 'failed' : 'completed',
        JSON.stringify(outcome.nodes),
        JSON.stringify(outcome.result),
        outcome.failure ? JSON.stringify(outcome.failure) : null,
        outcome.failure ? outcome.failure.retryable : null,
        outcome.completedAt.toISOString(),
        outcome.durationMs,
      ],
    });
  }

  /** A page of one workflow's runs within `scope` (what the caller may read), newest first. */
  async pageOfWorkflow(workflowId: string, scope: ReadScope, limit: number, offset: number) {
    const where = { workflowId, ...readScopeWhere(scope) };
    const [rows, total] = await Promise.all([
      this.db.execution.findMany({
        where,
        orderBy: [{ startedAt: 'desc' }, { id: 'asc' }],
        take: limit,
        skip: offset,
        select: {
          id: true,
          workflowId: true,
          status: true,
          startedAt: true,
          completedAt: true,
          durationMs: true,
          batchId: true,
          owner: true,
          team: true,
          traceId: true,
        },
      }),
      this.db.execution.count({ where }),
    ]);
    return { rows, total };
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
