import { scopeParams, type ReadScope } from '../access';
import type { Db } from '../database';

/** Statistics over steps (tasks) and their attempts. */
export class TasksRepository {
  constructor(private readonly db: Db) {}

  counts() {
    return this.db.$queryRaw<Array<{ type: string; state: string; count: number }>>`SELECT type, state, count(*)::int AS count FROM steps GROUP BY type, state`;
  }

  /** Durations of the attempts started in the last day that completed, and how many finished in the last minute. */
  durations() {
    return this.db.$queryRaw<Array<{ type: string; p50: number | null; p95: number | null; recent: number }>>`
      SELECT type,
        percentile_cont(0.5) WITHIN GROUP (ORDER BY "durationMs")::float8 AS p50,
        percentile_cont(0.95) WITHIN GROUP (ORDER BY "durationMs")::float8 AS p95,
        (count(*) FILTER (WHERE "finishedAt" > now() - interval '60 seconds'))::int AS recent
      FROM attempts WHERE "startedAt" > now() - interval '1 day' AND state = 'completed' GROUP BY type`;
  }

  /** Steps of the runs the caller may read (`scope`) that ran (or have been running) longer than `thresholdMs`, slowest first. */
  async slow(thresholdMs: number, scope: ReadScope, runId: string | undefined, limit: number, offset: number) {
    const { all, owner, teams } = scopeParams(scope);
    const rows = await this.db.$queryRaw<
      Array<{ id: string; runId: string; stepId: string; type: string; state: string; attempt: number; duration: number; total: number }>
    >`
      SELECT id, "runId", "stepId", type, state, attempt, duration, count(*) OVER ()::int AS total FROM (
        SELECT id, "runId", "stepId", type, state, attempt,
          (extract(epoch FROM COALESCE("finishedAt", now()) - "startedAt") * 1000)::int AS duration
        FROM steps WHERE "startedAt" IS NOT NULL AND state IN ('running', 'completed', 'failed', 'cancelled')
          AND (${runId ?? null}::uuid IS NULL OR "runId" = ${runId ?? null}::uuid)
          AND (${all}::boolean OR "runId" IN (SELECT r.id FROM runs r WHERE r.owner = ${owner} OR r.team = ANY(${teams}::text[])))
      ) timed
      WHERE duration > ${thresholdMs}::int
      ORDER BY duration DESC LIMIT ${limit}::int OFFSET ${offset}::int`;
    return rows;
  }

  /** The owner and team of a task's run, or null when there is no such task. */
  async ownerOf(taskId: string) {
    const step = await this.db.step.findUnique({ where: { id: taskId }, select: { run: { select: { owner: true, team: true } } } });
    return step?.run ?? null;
  }
}
