import { readScopeWhere, type ReadScope } from '@platform/http';
import type { Db } from '../database';
import type { Prisma } from '../generated/prisma/client';

export interface EvaluationRow {
  id: string;
  name: string;
  datasetId: string;
  metrics: unknown;
  target: unknown;
  total: number;
  createdAt: Date;
  completedAt: Date | null;
  owner: string | null;
  team: string | null;
}

export interface ResultRow {
  position: number;
  status: string;
  attempts: number;
  output: unknown;
  scores: unknown;
  judgments: unknown;
  traceId: string | null;
  latencyMs: number | null;
  error: string | null;
}

export type Counts = { total: number; pending: number; running: number; succeeded: number; failed: number };

export class EvaluationsRepository {
  constructor(private readonly db: Db) {}

  /** The evaluation and one pending result per example, together. */
  async create(input: {
    name: string;
    datasetId: string;
    metrics: unknown;
    target: unknown;
    total: number;
    owner: string;
    team: string | null;
  }): Promise<EvaluationRow> {
    return this.db.$transaction(async (tx) => {
      const evaluation = await tx.evaluation.create({
        data: {
          name: input.name,
          datasetId: input.datasetId,
          metrics: input.metrics as Prisma.InputJsonValue,
          target: (input.target ?? undefined) as Prisma.InputJsonValue | undefined,
          total: input.total,
          createdBy: input.owner,
          owner: input.owner,
          team: input.team,
        },
      });
      await tx.evaluationResult.createMany({ data: Array.from({ length: input.total }, (_, position) => ({ evaluationId: evaluation.id, position })) });
      return evaluation;
    });
  }

  get(id: string): Promise<EvaluationRow | null> {
    return this.db.evaluation.findUnique({ where: { id } });
  }

  /** A page of the evaluations in the read scope (all of them for the queue's own counts). */
  async list(scope: ReadScope, limit: number, offset: number): Promise<{ rows: EvaluationRow[]; total: number }> {
    const where = readScopeWhere(scope);
    const [rows, total] = await Promise.all([
      this.db.evaluation.findMany({ where, orderBy: { createdAt: 'desc' }, take: limit, skip: offset }),
      this.db.evaluation.count({ where }),
    ]);
    return { rows, total };
  }

  async counts(ids: string[]): Promise<Map<string, Counts>> {
    const rows = await this.db.evaluationResult.groupBy({ by: ['evaluationId', 'status'], where: { evaluationId: { in: ids } }, _count: { _all: true } });
    const counts = new Map<string, Counts>();
    for (const id of ids) counts.set(id, { total: 0, pending: 0, running: 0, succeeded: 0, failed: 0 });
    for (const row of rows) {
      const entry = counts.get(row.evaluationId)!;
      entry[row.status as keyof Omit<Counts, 'total'>] = row._count._all;
      entry.total += row._count._all;
    }
    return counts;
  }

  /** Average of each metric over the succeeded examples. */
  async summaries(ids: string[]): Promise<Map<string, Record<string, number | null>>> {
    const rows = await this.db.$queryRawUnsafe<Array<{ evaluation_id: string; metric: string; average: number | null }>>(
      `SELECT evaluation_id::text, s.key AS metric, avg((s.value #>> '{}')::float8) FILTER (WHERE jsonb_typeof(s.value) = 'number')::float8 AS average
       FROM evaluation_results r, jsonb_each(r.scores) s
       WHERE r.evaluation_id = ANY($1::uuid[]) AND r.status = 'succeeded' GROUP BY 1, 2`,
      ids,
    );
    // LLM judges: the share of graded examples whose score reached the rubric's pass threshold.
    const passes = await this.db.$queryRawUnsafe<Array<{ evaluation_id: string; metric: string; rate: number | null }>>(
      `SELECT evaluation_id::text, j.key AS metric, avg(CASE WHEN (j.value->>'passed')::boolean THEN 1 ELSE 0 END)::float8 AS rate
       FROM evaluation_results r, jsonb_each(r.judgments) j
       WHERE r.evaluation_id = ANY($1::uuid[]) AND r.status = 'succeeded' AND r.judgments IS NOT NULL GROUP BY 1, 2`,
      ids,
    );
    const result = new Map<string, Record<string, number | null>>();
    for (const row of rows) result.set(row.evaluation_id, { ...result.get(row.evaluation_id), [row.metric]: row.average });
    for (const row of passes) result.set(row.evaluation_id, { ...result.get(row.evaluation_id), [`${row.metric}.pass_rate`]: row.rate });
    return result;
  }

  /** The newest evaluations in the read scope with examples still pending or running. */
  listUnfinished(scope: ReadScope, limit: number): Promise<EvaluationRow[]> {
    return this.db.evaluation.findMany({
      where: { ...readScopeWhere(scope), results: { some: { status: { in: ['pending', 'running'] } } } },
      orderBy: { createdAt: 'desc' },
      take: limit,
    });
  }

  /** Evaluations with examples still pending or running. */
  async unfinishedIds(): Promise<string[]> {
    const rows = await this.db.evaluationResult.findMany({
      where: { status: { in: ['pending', 'running'] } },
      distinct: ['evaluationId'],
      select: { evaluationId: true },
      take: 500,
    });
    return rows.map((row) => row.evaluationId);
  }

  async results(id: string, status: string | undefined, limit: number, offset: number): Promise<{ rows: ResultRow[]; total: number }> {
    const where = { evaluationId: id, ...(status && { status }) };
    const [rows, total] = await Promise.all([
      this.db.evaluationResult.findMany({ where, orderBy: { position: 'asc' }, take: limit, skip: offset }),
      this.db.evaluationResult.count({ where }),
    ]);
    return { rows, total };
  }

  async start(id: string, position: number): Promise<void> {
    await this.db.evaluationResult.update({
      where: { evaluationId_position: { evaluationId: id, position } },
      data: { status: 'running', attempts: { increment: 1 } },
    });
  }

  async succeed(
    id: string,
    position: number,
    result: {
      output: unknown;
      scores: Record<string, number | null>;
      judgments: Record<string, unknown> | null;
      traceId: string | null;
      latencyMs: number | null;
    },
  ): Promise<void> {
    await this.db.evaluationResult.update({
      where: { evaluationId_position: { evaluationId: id, position } },
      data: {
        status: 'succeeded',
        output: (result.output ?? null) as Prisma.InputJsonValue,
        scores: result.scores,
        judgments: (result.judgments ?? undefined) as Prisma.InputJsonValue | undefined,
        traceId: result.traceId,
        latencyMs: result.latencyMs,
        error: null,
      },
    });
  }

  /** `final`: no retry is left, the example failed; otherwise it waits for the next attempt. */
  async fail(id: string, position: number, error: string, final: boolean): Promise<void> {
    await this.db.evaluationResult.update({
      where: { evaluationId_position: { evaluationId: id, position } },
      data: { status: final ? 'failed' : 'pending', error: error.slice(0, 2000) },
    });
  }

  /** Sets failed examples back to pending; answers their positions. */
  async resetFailed(id: string): Promise<number[]> {
    const rows = await this.db.$queryRawUnsafe<Array<{ position: number }>>(
      `UPDATE evaluation_results SET status = 'pending', error = NULL, updated_at = now() WHERE evaluation_id = $1::uuid AND status = 'failed' RETURNING position`,
      id,
    );
    if (rows.length > 0) await this.db.evaluation.update({ where: { id }, data: { completedAt: null } });
    return rows.map((row) => row.position).sort((a, b) => a - b);
  }

  /** Marks the evaluation complete once no example is pending or running. */
  async completeIfDone(id: string): Promise<void> {
    await this.db.$executeRawUnsafe(
      `UPDATE evaluations SET completed_at = now() WHERE id = $1::uuid AND completed_at IS NULL
         AND NOT EXISTS (SELECT 1 FROM evaluation_results WHERE evaluation_id = $1::uuid AND status IN ('pending', 'running'))`,
      id,
    );
  }
}
