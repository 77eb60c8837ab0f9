import { randomUUID } from 'node:crypto';
import type { workers } from '@platform/contracts';
import type { Pool, QueryConfig } from 'pg';
import type { Db, Tx } from '../database';
import { scopeParams, type ReadScope } from '../access';

/** A step job to put on the queue: attempt `attempt` of task `taskId`, not before `delayMs`. */
export interface StepJob {
  taskId: string;
  attempt: number;
  delayMs?: number;
}

/** What a worker holds after claiming a step: everything it needs to run it. */
export interface ClaimedStep {
  id: string;
  runId: string;
  stepId: string;
  type: workers.StepType;
  spec: workers.StepDefinition;
  attempt: number;
  failures: number;
  maxAttempts: number;
  timeoutMs: number;
  input: Record<string, unknown>;
  traceId: string;
  outputs: Record<string, unknown>;
}

export type Outcome =
  | { kind: 'completed'; output: unknown }
  | { kind: 'failed' | 'timed_out'; error: string; output?: unknown; retryable: boolean }
  | { kind: 'cancelled'; error: string };

export interface FinishResult {
  /** False when the attempt no longer held the step (fenced out: recovered, cancelled, retried). */
  applied: boolean;
  jobs: StepJob[];
  runState?: string;
}

const TERMINAL_RUN = ['completed', 'failed', 'cancelled'];

/**
 * A named statement: pg prepares it once per connection and Postgres keeps its plan (the engine
 * pool plans generically, on indexes only: `engineSqlSettings`), instead of parsing and planning
 * these large statements on every call.
 */
const named = (name: string, text: string, values: unknown[]): QueryConfig => ({ name, text, values });

/**
 * Session settings of the engine's pool. A generic plan is made once per connection, whatever the
 * tables held then: without sequential scans it is the index plan these by-key statements need
 * even when made on a nearly empty table.
 */
export const engineSqlSettings = { plan_cache_mode: 'force_generic_plan', enable_seqscan: 'off' };

/*
 * The hot statements find their steps by primary key (`s.id = ANY($ids)`, a condition of the scan
 * itself, whatever the join order) and compare the state with a parameter (`s.state = $n`). With
 * `state = 'running'` written out, a generic plan made while few steps ran could choose the
 * reaper's partial index of running steps, which holds every running step and, until vacuumed,
 * every step that ever ran: each completion then scanned it whole (9,400 entries by the end of a
 * bench:workers run).
 */

/**
 * The escapes in JSON text of what Postgres' jsonb refuses: U+0000 and a lone surrogate (JSON.stringify
 * escapes a surrogate only when it is unpaired). Only after an even number of backslashes:
 * `\\u0000` is text.
 */
const UNSTORABLE_ESCAPE = /(?<!\\)((?:\\\\)*)\\u(?:0000|d[89a-f][0-9a-f]{2})/g;
/**
 * JSON for a jsonb column: U+0000 and lone surrogates become U+FFFD, in names as in values. The
 * JSON text is rewritten only when it holds such an escape (a replacer function would run for
 * every value of every step's output). What JSON cannot hold at all (a function) is stored as null.
 */
const storableJson = (value: unknown) => {
  const text = JSON.stringify(value ?? null) ?? 'null';
  return text.includes('\\u') ? text.replace(UNSTORABLE_ESCAPE, '$1\\ufffd') : text;
};
/** Text for a text column, without U+0000 and at most 4000 characters. */
const storableText = (text: string) => text.split('\u0000').join('\ufffd').slice(0, 4000);

/**
 * Every state change of runs and steps, each one a single guarded statement or transaction on
 * Postgres, the record of truth. A worker's update names the attempt it holds (the fencing token);
 * recovery and retries move the token on, so a worker that lost its step writes nothing. Terminal
 * states are only left through the operator's explicit retry.
 */
export class EngineRepository {
  /**
   * `queue`: this deployment's WORKERS_QUEUE; its runs are the ones recovered and watched here.
   * `sql`: a plain pg pool on the same schema for the per-step hot path (claim, lease renewal,
   * completion), where Prisma's raw-query path costs about 7 times the CPU of pg itself
   * (0.55 against 0.08 ms a statement, measured); everything else goes through Prisma.
   */
  constructor(
    private readonly db: Db,
    private readonly queue: string,
    private readonly sql: Pool,
    /**
     * WORKERS_POISON_AFTER: a step found orphaned this many times (its worker died or hung holding
     * it each time) is a poison step, failed instead of queued again.
     */
    private readonly poisonAfter = 2,
  ) {}

  /**
   * Creates a run and its steps in one statement (no transaction held open across round trips, so
   * starting runs never waits for a pooled transaction under load); the steps without dependencies
   * are queued at once.
   */
  async createRun(input: {
    definitionId: string;
    name: string;
    version: number;
    steps: workers.StepDefinition[];
    runInput: Record<string, unknown>;
    traceId: string;
    createdBy?: string;
    /** The run's owner and team; none: reached only with `workers:admin`. */
    owner?: string | null;
    team?: string | null;
  }) {
    const runId = randomUUID();
    const createdAt = new Date();
    const rows = input.steps.map((step) => ({ id: randomUUID(), step, root: step.depends_on.length === 0 }));
    const dependants = new Map<string, string[]>();
    for (const step of input.steps) {
      for (const dependency of step.depends_on) dependants.set(dependency, [...(dependants.get(dependency) ?? []), step.id]);
    }
    const steps = rows.map(({ id, step, root }) => ({
      id,
      stepId: step.id,
      type: step.type,
      spec: step,
      dependsOn: step.depends_on,
      dependants: dependants.get(step.id) ?? [],
      maxAttempts: step.retry?.maxAttempts ?? 1,
      root,
    }));
    await this.sql.query(
      named(
        'workers_create_run',
        `WITH created AS (
        INSERT INTO runs (id, "definitionId", name, version, input, "traceId", queue, "createdBy", "createdAt", "lastProgressAt", owner, team)
        VALUES ($1::uuid, $2::uuid, $3, $4::int, $5::jsonb, $6, $7, $8, $9::timestamptz AT TIME ZONE 'UTC', $9::timestamptz AT TIME ZONE 'UTC', $11, $12)
        RETURNING id
      )
      INSERT INTO steps (id, "runId", "stepId", type, spec, "dependsOn", dependants, "remainingDeps", state, attempt, "maxAttempts", "queuedAt", "availableAt")
      SELECT x.id, (SELECT id FROM created), x."stepId", x.type, x.spec, ARRAY(SELECT jsonb_array_elements_text(x."dependsOn")),
        ARRAY(SELECT jsonb_array_elements_text(x.dependants)), jsonb_array_length(x."dependsOn"),
        CASE WHEN x.root THEN 'queued' ELSE 'waiting' END, CASE WHEN x.root THEN 1 ELSE 0 END, x."maxAttempts",
        CASE WHEN x.root THEN now() END, CASE WHEN x.root THEN now() END
      FROM jsonb_to_recordset($10::jsonb) AS x(id uuid, "stepId" text, type text, spec jsonb, "dependsOn" jsonb, dependants jsonb, "maxAttempts" int, root boolean)`,
        [
          runId,
          input.definitionId,
          input.name,
          input.version,
          storableJson(input.runInput),
          input.traceId,
          this.queue,
          input.createdBy ?? null,
          createdAt.toISOString(),
          storableJson(steps),
          input.owner ?? null,
          input.team ?? null,
        ],
      ),
    );
    const run = {
      id: runId,
      name: input.name,
      version: input.version,
      state: 'pending',
      error: null,
      blockedSteps: [] as string[],
      traceId: input.traceId,
      createdAt,
      startedAt: null,
      finishedAt: null,
      owner: input.owner ?? null,
      team: input.team ?? null,
    };
    const jobs = rows.filter((row) => row.root).map((row) => ({ taskId: row.id, attempt: 1 }));
    return { run, jobs };
  }

  async runName(runId: string): Promise<string | undefined> {
    return (await this.db.run.findUnique({ where: { id: runId }, select: { name: true } }))?.name;
  }

  /**
   * Claims a queued step for one attempt: running, leased to `workerId`, its attempt recorded with
   * its idempotency key (`<run>:<step>`, the same for every attempt) and timeout. Nothing is claimed when the attempt is stale or the run ended.
   */
  async claim(taskId: string, attempt: number, workerId: string, leaseMs: number, defaultTimeoutMs: number): Promise<ClaimedStep | undefined> {
    return (await this.claimMany([{ taskId, attempt }], workerId, leaseMs, defaultTimeoutMs))[0];
  }

  /**
   * `claim` for many step jobs in one statement (the executor gathers the jobs its worker took at
   * once); the answer is in the order of `jobs`, undefined for each attempt that was not claimed.
   */
  async claimMany(jobs: readonly StepJob[], workerId: string, leaseMs: number, defaultTimeoutMs: number): Promise<Array<ClaimedStep | undefined>> {
    const { rows } = await this.sql.query<Omit<ClaimedStep, 'outputs'>>(
      named(
        'workers_claim',
        `WITH claimed AS (
        UPDATE steps s SET state = 'running', "leaseOwner" = $1, "leaseExpiresAt" = now() + ($2::int * interval '1 millisecond'), "startedAt" = now(), "finishedAt" = NULL
        FROM unnest($3::uuid[], $4::int[]) AS j(id, attempt), runs r
        WHERE s.id = ANY($3::uuid[]) AND s.id = j.id AND s.attempt = j.attempt AND s.state = $6 AND r.id = s."runId" AND r.state IN ('pending', 'running')
        RETURNING s.id, s."runId", s."stepId", s.type, s.spec, s.attempt, s.failures, s."maxAttempts", r.input, r."traceId",
          COALESCE(s."timeoutOverrideMs", (s.spec->>'timeout')::int * 1000, (SELECT t."timeoutMs" FROM task_types t WHERE t.type = s.type), $5::int) AS "timeoutMs"
      ), recorded AS (
        INSERT INTO attempts ("taskId", "runId", "stepId", type, number, "workerId", state, "idempotencyKey", "timeoutMs")
        SELECT id, "runId", "stepId", type, attempt, $1, 'running', "runId" || ':' || "stepId", "timeoutMs" FROM claimed
      ), started AS (
        UPDATE runs SET state = 'running', "startedAt" = now(), "lastProgressAt" = now() WHERE id IN (SELECT "runId" FROM claimed) AND state = 'pending'
      )
      SELECT * FROM claimed`,
        [workerId, leaseMs, jobs.map((job) => job.taskId), jobs.map((job) => job.attempt), defaultTimeoutMs, 'queued'],
      ),
    );
    const byId = new Map(rows.map((row) => [row.id, row]));
    const claimed = jobs.map((job) => {
      const step = byId.get(job.taskId);
      return step && step.attempt === job.attempt ? { ...step, spec: step.spec as workers.StepDefinition } : undefined;
    });
    return this.withOutputs(claimed);
  }

  /**
   * Adds to each claimed step the outputs of the upstream steps its templates read: one query for
   * the whole batch (a join over the wanted (run, step) pairs), not one per step.
   */
  private async withOutputs(steps: Array<Omit<ClaimedStep, 'outputs'> | undefined>): Promise<Array<ClaimedStep | undefined>> {
    const wanted = steps.flatMap((step) => (step ? referencedSteps(step.spec).map((stepId) => [step.runId, stepId] as const) : []));
    const outputs = new Map<string, Record<string, unknown>>();
    if (wanted.length > 0) {
      const { rows } = await this.sql.query<{ runId: string; stepId: string; output: unknown }>(
        named(
          'workers_outputs',
          `SELECT s."runId", s."stepId", s.output FROM unnest($1::uuid[], $2::text[]) AS w("runId", "stepId")
         JOIN steps s ON s."runId" = w."runId" AND s."stepId" = w."stepId" AND s.state = 'completed'`,
          [wanted.map(([runId]) => runId), wanted.map(([, stepId]) => stepId)],
        ),
      );
      for (const row of rows) outputs.set(row.runId, { ...outputs.get(row.runId), [row.stepId]: row.output });
    }
    return steps.map((step) => step && { ...step, outputs: outputs.get(step.runId) ?? {} });
  }

  /** Extends the lease of the attempt still holding the step; false when it no longer does. */
  async renewLease(taskId: string, attempt: number, workerId: string, leaseMs: number): Promise<boolean> {
    const { rowCount } = await this.sql.query(
      named(
        'workers_renew_lease',
        `UPDATE steps SET "leaseExpiresAt" = now() + ($1::int * interval '1 millisecond') WHERE id = $2::uuid AND attempt = $3::int AND state = $5 AND "leaseOwner" = $4`,
        [leaseMs, taskId, attempt, workerId, 'running'],
      ),
    );
    return rowCount === 1;
  }

  /**
   * Records the outcome of an attempt. Success queues the dependants whose last dependency this
   * was; a failure with attempts left queues the next attempt after `retryDelayMs`; a final failure
   * blocks the steps downstream. When nothing can run any more, the run ends.
   */
  async finish(step: Pick<ClaimedStep, 'id' | 'runId' | 'stepId' | 'attempt'>, outcome: Outcome, retryDelayMs: number): Promise<FinishResult> {
    if (outcome.kind === 'completed') return this.complete(step, outcome.output);
    return this.db.$transaction(async (tx) => {
      const [run] = await tx.$queryRaw<Array<{ state: string }>>`SELECT state FROM runs WHERE id = ${step.runId}::uuid FOR NO KEY UPDATE`;
      const error = storableText(outcome.error);
      await tx.$executeRaw`
        UPDATE attempts SET state = ${outcome.kind}, "finishedAt" = now(), "durationMs" = (extract(epoch FROM now() - "startedAt") * 1000)::int, error = ${error}
        WHERE "taskId" = ${step.id}::uuid AND number = ${step.attempt}::int AND state = 'running'`;
      const jobs: StepJob[] = [];
      const output = outcome.kind === 'cancelled' || outcome.output === undefined ? null : storableJson(outcome.output);
      let applied: number;
      if (outcome.kind !== 'cancelled' && outcome.retryable) {
        const next = await tx.$queryRaw<StepJob[]>`
          UPDATE steps SET state = 'queued', attempt = attempt + 1, failures = failures + 1, error = ${error}, output = ${output}::jsonb,
            "leaseOwner" = NULL, "leaseExpiresAt" = NULL, "queuedAt" = now(), "availableAt" = now() + (${retryDelayMs}::int * interval '1 millisecond')
          WHERE id = ${step.id}::uuid AND attempt = ${step.attempt}::int AND state = 'running' AND failures + 1 < "maxAttempts"
          RETURNING id AS "taskId", attempt`;
        applied = next.length;
        if (applied && run?.state === 'running') jobs.push({ ...next[0]!, delayMs: retryDelayMs });
        if (!applied) applied = await this.failFinally(tx, step, error, output);
      } else {
        applied = await this.failFinally(tx, step, error, output, outcome.kind === 'cancelled' ? 'cancelled' : 'failed');
      }
      if (!applied) return { applied: false, jobs: [] };
      if (!run || TERMINAL_RUN.includes(run.state)) return { applied: true, jobs: [], runState: run?.state };
      await tx.$executeRaw`UPDATE runs SET "lastProgressAt" = now() WHERE id = ${step.runId}::uuid`;
      await this.blockDownstream(tx, step.runId);
      const runState = await this.settleRun(tx, step.runId);
      return { applied: true, jobs, runState };
    });
  }

  /** A completion recorded alone (the executor batches them through `completeMany` and `settleRuns`). */
  private async complete(step: Pick<ClaimedStep, 'id' | 'runId' | 'stepId' | 'attempt'>, value: unknown): Promise<FinishResult> {
    const [done] = await this.completeMany([{ step, output: value }]);
    if (!done?.applied) return { applied: false, jobs: [] };
    if (!done.leaf) return { applied: true, jobs: done.jobs, runState: 'running' };
    const [runState] = await this.settleRuns([step.runId]);
    return { applied: true, jobs: done.jobs, runState };
  }

  /**
   * The hot path, one statement for many completions, without a transaction held open: each step
   * completes if its attempt still holds it (the fencing token), its attempt is recorded, and the
   * dependants whose last dependencies these were are queued (the decrement counts every
   * dependency completed in the batch; row locks serialise concurrent batches and cancels). A
   * completion without a waiting dependant is a `leaf`: its run may have ended, which `settleRuns`
   * checks after this commit (so the last of two concurrent completions always sees the other).
   *
   * With `claim`, the same statement claims for `claim.workerId` up to one dependant per completion
   * (`next`, its attempt recorded running), for the completed step's slot to run at once: one the
   * completion made ready, or else one another completion of the batch made ready beyond its own;
   * the others are in `jobs`, to be queued.
   */
  async completeMany(
    items: ReadonlyArray<{ step: Pick<ClaimedStep, 'id' | 'runId' | 'stepId' | 'attempt'>; output: unknown }>,
    claim?: { workerId: string; leaseMs: number; defaultTimeoutMs: number },
  ): Promise<Array<{ applied: boolean; leaf: boolean; jobs: StepJob[]; next?: ClaimedStep }>> {
    const { rows } = await this.sql.query<{ id: string; leaf: boolean; jobs: StepJob[]; next: Omit<ClaimedStep, 'outputs'> | null }>(
      named(
        'workers_complete',
        `WITH input AS (
        SELECT * FROM unnest($1::uuid[], $2::int[], $3::jsonb[]) AS i(id, attempt, output)
      ), done AS (
        UPDATE steps s SET state = 'completed', output = i.output, error = NULL, "finishedAt" = now(), "leaseOwner" = NULL, "leaseExpiresAt" = NULL
        FROM input i
        WHERE s.id = ANY($1::uuid[]) AND s.id = i.id AND s.attempt = i.attempt AND s.state = $7
        RETURNING s.id, s.attempt, s."runId", s.dependants
      ), recorded AS (
        UPDATE attempts a SET state = 'completed', "finishedAt" = now(), "durationMs" = (extract(epoch FROM now() - a."startedAt") * 1000)::int
        FROM done d WHERE a."taskId" = d.id AND a.number = d.attempt AND a.state = 'running'
      ), edges AS (
        SELECT d.id AS dependency, w.id AS dependant, w."remainingDeps" AS remaining FROM done d
        JOIN runs r ON r.id = d."runId" AND r.state = 'running'
        JOIN steps w ON w."runId" = d."runId" AND w."stepId" = ANY(d.dependants) AND w.state = 'waiting'
      ), counted AS (
        -- A dependant made ready by several completions of the batch is owned by its first dependency.
        SELECT dependant, count(*)::int AS n, min(dependency::text)::uuid AS owner, min(remaining) AS remaining FROM edges GROUP BY dependant
      ), locked AS (
        -- Dependants locked in id order: two batches making the same steps ready never deadlock.
        SELECT id FROM steps WHERE id IN (SELECT dependant FROM counted) ORDER BY id FOR NO KEY UPDATE
      ), becoming AS (
        SELECT dependant, owner FROM counted WHERE $4::text IS NOT NULL AND remaining <= n
      ), own AS (
        -- Each completion's slot takes one of the dependants it made ready...
        SELECT DISTINCT ON (owner) dependant, owner AS slot FROM becoming ORDER BY owner, dependant
      ), spare AS (
        SELECT dependant, row_number() OVER (ORDER BY dependant) AS k FROM becoming WHERE dependant NOT IN (SELECT dependant FROM own)
      ), idle AS (
        SELECT id AS slot, row_number() OVER (ORDER BY id) AS k FROM done WHERE id NOT IN (SELECT slot FROM own)
      ), chosen AS (
        -- ...and the slots of completions that made none ready take the rest, one each: a slot that
        -- would end its chain runs a step of this batch instead of a trip through the queue. A
        -- concurrent change can only leave a chosen step unready (then it stays waiting).
        SELECT dependant, slot FROM own
        UNION ALL
        SELECT s.dependant, i.slot FROM spare s JOIN idle i ON i.k = s.k
      ), ready AS (
        UPDATE steps s SET "remainingDeps" = s."remainingDeps" - x.n,
          state = CASE WHEN s."remainingDeps" > x.n THEN s.state WHEN c.dependant IS NULL THEN 'queued' ELSE 'running' END,
          attempt = CASE WHEN s."remainingDeps" <= x.n THEN s.attempt + 1 ELSE s.attempt END,
          "queuedAt" = CASE WHEN s."remainingDeps" <= x.n THEN now() ELSE s."queuedAt" END,
          "availableAt" = CASE WHEN s."remainingDeps" <= x.n THEN now() ELSE s."availableAt" END,
          "startedAt" = CASE WHEN s."remainingDeps" <= x.n AND c.dependant IS NOT NULL THEN now() ELSE s."startedAt" END,
          "leaseOwner" = CASE WHEN s."remainingDeps" <= x.n AND c.dependant IS NOT NULL THEN $4 ELSE s."leaseOwner" END,
          "leaseExpiresAt" = CASE WHEN s."remainingDeps" <= x.n AND c.dependant IS NOT NULL THEN now() + ($5::int * interval '1 millisecond') ELSE s."leaseExpiresAt" END
        FROM counted x LEFT JOIN chosen c ON c.dependant = x.dependant
        WHERE s.id = x.dependant AND s.id IN (SELECT id FROM locked) AND s.state = 'waiting'
        RETURNING s.id, s."runId", s."stepId", s.type, s.spec, s.attempt, s.failures, s."maxAttempts", s.state, COALESCE(c.slot, x.owner) AS owner,
          COALESCE(s."timeoutOverrideMs", (s.spec->>'timeout')::int * 1000, (SELECT t."timeoutMs" FROM task_types t WHERE t.type = s.type), $6::int) AS "timeoutMs"
      ), started AS (
        INSERT INTO attempts ("taskId", "runId", "stepId", type, number, "workerId", state, "idempotencyKey", "timeoutMs")
        SELECT id, "runId", "stepId", type, attempt, $4, 'running', "runId" || ':' || "stepId", "timeoutMs" FROM ready WHERE state = 'running'
      ), jobs AS (
        SELECT owner, json_agg(json_build_object('taskId', id, 'attempt', attempt)) AS jobs FROM ready WHERE state = 'queued' GROUP BY owner
      ), next AS (
        SELECT e.owner, json_build_object('id', e.id, 'runId', e."runId", 'stepId', e."stepId", 'type', e.type, 'spec', e.spec, 'attempt', e.attempt,
          'failures', e.failures, 'maxAttempts', e."maxAttempts", 'timeoutMs', e."timeoutMs", 'input', r.input, 'traceId', r."traceId") AS next
        FROM ready e JOIN runs r ON r.id = e."runId" WHERE e.state = 'running'
      )
      SELECT d.id, NOT EXISTS (SELECT 1 FROM edges e WHERE e.dependency = d.id) AS leaf, COALESCE(j.jobs, '[]'::json) AS jobs, n.next
      FROM done d LEFT JOIN jobs j ON j.owner = d.id LEFT JOIN next n ON n.owner = d.id`,
        [
          items.map((item) => item.step.id),
          items.map((item) => item.step.attempt),
          items.map((item) => storableJson(item.output)),
          claim?.workerId ?? null,
          claim?.leaseMs ?? 0,
          claim?.defaultTimeoutMs ?? 0,
          'running',
        ],
      ),
    );
    const byId = new Map(rows.map((row) => [row.id, row]));
    // Committed: a claimed step whose outputs could not be read is left to its lease (the reaper re-queues it).
    const claimed = items.map((item) => byId.get(item.step.id)?.next ?? undefined);
    const next = await this.withOutputs(claimed).catch(() => claimed.map(() => undefined));
    return items.map((item, i) => {
      const row = byId.get(item.step.id);
      if (!row) return { applied: false, leaf: false, jobs: [] };
      return { applied: true, leaf: row.leaf, jobs: row.jobs, ...(next[i] && { next: next[i] }) };
    });
  }

  /**
   * After completions without a waiting dependant: each run none of whose steps is open any more
   * ends, completed when every step completed (one statement for all), otherwise failed naming the
   * failed and blocked steps. Answers each run's state, in the order of `runIds`.
   */
  async settleRuns(runIds: readonly string[]): Promise<Array<string | undefined>> {
    const unique = [...new Set(runIds)];
    const { rows } = await this.sql.query<{ id: string; state: string }>(
      named(
        'workers_settle_runs',
        `WITH finished AS (
        UPDATE runs SET state = 'completed', "finishedAt" = now(), "lastProgressAt" = now(), error = NULL, "blockedSteps" = '{}'
        WHERE id = ANY($1::uuid[]) AND state IN ('pending', 'running')
          AND NOT EXISTS (SELECT 1 FROM steps s WHERE s."runId" = runs.id AND s.state <> 'completed')
        RETURNING id
      )
      SELECT id, 'completed' AS state FROM finished
      UNION ALL
      SELECT r.id, CASE WHEN EXISTS (SELECT 1 FROM steps s WHERE s."runId" = r.id AND s.state IN ('waiting', 'queued', 'running')) THEN 'running' ELSE 'settle' END
      FROM unnest($1::uuid[]) AS r(id) WHERE r.id NOT IN (SELECT id FROM finished)`,
        [unique],
      ),
    );
    const states = new Map(rows.map((row) => [row.id, row.state]));
    for (const [runId, state] of states) {
      if (state !== 'settle') continue;
      states.set(
        runId,
        await this.db.$transaction(async (tx) => {
          const [run] = await tx.$queryRaw<Array<{ state: string }>>`SELECT state FROM runs WHERE id = ${runId}::uuid FOR NO KEY UPDATE`;
          if (!run || TERMINAL_RUN.includes(run.state)) return run?.state ?? 'missing';
          await this.blockDownstream(tx, runId);
          return this.settleRun(tx, runId);
        }),
      );
    }
    return runIds.map((runId) => states.get(runId));
  }

  private async failFinally(
    tx: Tx,
    step: Pick<ClaimedStep, 'id' | 'attempt'>,
    error: string,
    output: string | null,
    state: 'failed' | 'cancelled' = 'failed',
  ): Promise<number> {
    return tx.$executeRaw`
      UPDATE steps SET state = ${state}, failures = failures + 1, error = ${error}, output = ${output}::jsonb, "finishedAt" = now(), "leaseOwner" = NULL, "leaseExpiresAt" = NULL
      WHERE id = ${step.id}::uuid AND attempt = ${step.attempt}::int AND state = 'running'`;
  }

  /** Marks every waiting step below a failed or cancelled one as blocked: it can never start. */
  private blockDownstream(tx: Tx, runId: string) {
    return tx.$executeRaw`
      WITH RECURSIVE down(sid) AS (
        SELECT s."stepId" FROM steps s
        WHERE s."runId" = ${runId}::uuid AND EXISTS (SELECT 1 FROM steps f WHERE f."runId" = s."runId" AND f.state IN ('failed', 'cancelled', 'blocked') AND f."stepId" = ANY(s."dependsOn"))
        UNION
        SELECT s."stepId" FROM steps s JOIN down d ON d.sid = ANY(s."dependsOn") WHERE s."runId" = ${runId}::uuid
      )
      UPDATE steps SET state = 'blocked' WHERE "runId" = ${runId}::uuid AND "stepId" IN (SELECT sid FROM down) AND state = 'waiting'`;
  }

  /**
   * Ends the run when none of its steps can run any more: completed when every step completed,
   * otherwise failed, naming the failed steps and the steps they blocked. Never leaves a terminal state.
   */
  private async settleRun(tx: Tx, runId: string): Promise<string> {
    const rows = await tx.$queryRaw<Array<{ stepId: string; state: string; error: string | null }>>`
      SELECT "stepId", state, error FROM steps WHERE "runId" = ${runId}::uuid`;
    if (rows.some((row) => ['waiting', 'queued', 'running'].includes(row.state))) return 'running';
    const failed = rows.filter((row) => row.state === 'failed' || row.state === 'cancelled');
    const blocked = rows.filter((row) => row.state === 'blocked').map((row) => row.stepId);
    if (failed.length === 0 && blocked.length === 0) {
      await tx.$executeRaw`UPDATE runs SET state = 'completed', "finishedAt" = now(), error = NULL, "blockedSteps" = '{}' WHERE id = ${runId}::uuid AND state IN ('pending', 'running')`;
      return 'completed';
    }
    const reasons = failed.map((row) => `${row.stepId} ${row.state}${row.error ? ` (${row.error.slice(0, 200)})` : ''}`);
    const message = `${reasons.join('; ')}${blocked.length ? `; blocked steps: ${blocked.join(', ')}` : ''}`;
    await tx.$executeRaw`UPDATE runs SET state = 'failed', "finishedAt" = now(), error = ${message}, "blockedSteps" = ${blocked} WHERE id = ${runId}::uuid AND state IN ('pending', 'running')`;
    return 'failed';
  }

  /**
   * Cancels a run that has not ended: its steps that have not ended are cancelled (running ones
   * included; their workers are told to abort). Returns the running task ids, or undefined when
   * the run is missing, and the run's state when it had already ended.
   */
  async cancel(runId: string): Promise<{ state: string; running: string[]; changed: boolean } | undefined> {
    return this.db.$transaction(async (tx) => {
      const [run] = await tx.$queryRaw<Array<{ state: string }>>`SELECT state FROM runs WHERE id = ${runId}::uuid FOR NO KEY UPDATE`;
      if (!run) return undefined;
      if (TERMINAL_RUN.includes(run.state)) return { state: run.state, running: [], changed: false };
      const running = await tx.$queryRaw<Array<{ id: string; attempt: number }>>`
        UPDATE steps SET state = 'cancelled', error = 'cancelled by the operator', "finishedAt" = now(), "leaseOwner" = NULL, "leaseExpiresAt" = NULL
        WHERE "runId" = ${runId}::uuid AND state IN ('waiting', 'queued', 'running', 'blocked')
        RETURNING id, attempt, (SELECT count(*) FROM attempts a WHERE a."taskId" = steps.id AND a.number = steps.attempt AND a.state = 'running')::int AS live`;
      await tx.$executeRaw`
        UPDATE attempts SET state = 'cancelled', "finishedAt" = now(), "durationMs" = (extract(epoch FROM now() - "startedAt") * 1000)::int, error = 'cancelled by the operator'
        WHERE "runId" = ${runId}::uuid AND state = 'running'`;
      await tx.$executeRaw`UPDATE runs SET state = 'cancelled', "finishedAt" = now(), error = 'cancelled by the operator', "lastProgressAt" = now() WHERE id = ${runId}::uuid`;
      const live = running.filter((row) => (row as unknown as { live: number }).live > 0).map((row) => row.id);
      return { state: 'cancelled', running: live, changed: true };
    });
  }

  /**
   * Ends a run that never started because its first steps could not be queued (Redis did not take
   * them): failed with `error`, its steps cancelled, so that a job landing later claims nothing.
   * An operator's retry runs it. False when a step was claimed meanwhile (the jobs did land late):
   * the run goes on. The run's row lock orders this against a claim, which starts the run.
   */
  async abandon(runId: string, error: string): Promise<boolean> {
    return this.db.$transaction(async (tx) => {
      const ended = await tx.$executeRaw`
        UPDATE runs SET state = 'failed', error = ${error}, "finishedAt" = now(), "lastProgressAt" = now() WHERE id = ${runId}::uuid AND state = 'pending'`;
      if (ended === 0) return false;
      await tx.$executeRaw`
        UPDATE steps SET state = 'cancelled', error = ${error}, "finishedAt" = now()
        WHERE "runId" = ${runId}::uuid AND state IN ('waiting', 'queued')`;
      return true;
    });
  }

  /**
   * Re-runs the failed, cancelled and blocked steps of an ended run that did not complete; the
   * completed steps and their outputs stay. Each re-run step gets a new attempt (fencing token).
   */
  async retryRun(runId: string): Promise<{ state: string; jobs: StepJob[]; changed: boolean } | undefined> {
    return this.db.$transaction(async (tx) => {
      const [run] = await tx.$queryRaw<Array<{ state: string }>>`SELECT state FROM runs WHERE id = ${runId}::uuid FOR NO KEY UPDATE`;
      if (!run) return undefined;
      if (run.state !== 'failed' && run.state !== 'cancelled') return { state: run.state, jobs: [], changed: false };
      await tx.$executeRaw`
        UPDATE steps s SET state = 'waiting', failures = 0, recoveries = 0, error = NULL, output = NULL, "startedAt" = NULL, "finishedAt" = NULL, "leaseOwner" = NULL, "leaseExpiresAt" = NULL,
          "remainingDeps" = (SELECT count(*) FROM steps d WHERE d."runId" = s."runId" AND d."stepId" = ANY(s."dependsOn") AND d.state <> 'completed')::int
        WHERE s."runId" = ${runId}::uuid AND s.state IN ('failed', 'cancelled', 'blocked', 'waiting')`;
      const jobs = await this.queueReady(tx, runId);
      await tx.$executeRaw`UPDATE runs SET state = 'running', error = NULL, "blockedSteps" = '{}', "finishedAt" = NULL, "lastProgressAt" = now() WHERE id = ${runId}::uuid`;
      return { state: 'running', jobs, changed: true };
    });
  }

  /** Queues the waiting steps of a run whose dependencies all completed. */
  private queueReady(tx: Tx, runId: string) {
    return tx.$queryRaw<StepJob[]>`
      UPDATE steps SET state = 'queued', attempt = attempt + 1, "queuedAt" = now(), "availableAt" = now()
      WHERE "runId" = ${runId}::uuid AND state = 'waiting' AND "remainingDeps" = 0
      RETURNING id AS "taskId", attempt`;
  }

  /**
   * Re-runs one failed or cancelled task whose dependencies completed, optionally with its own
   * timeout; the steps it blocked wait for it again, and an ended run runs again.
   */
  async retryTask(taskId: string, timeoutMs: number | undefined) {
    return this.db.$transaction(async (tx) => {
      const step = await tx.step.findUnique({ where: { id: taskId }, select: { runId: true, stepId: true, state: true, dependsOn: true } });
      if (!step) return { status: 'missing' as const };
      await tx.$queryRaw`SELECT 1 FROM runs WHERE id = ${step.runId}::uuid FOR NO KEY UPDATE`;
      const fresh = await tx.step.findUniqueOrThrow({ where: { id: taskId } });
      if (fresh.state !== 'failed' && fresh.state !== 'cancelled') return { status: 'not_retryable' as const, state: fresh.state };
      const unmet = await tx.step.findMany({
        where: { runId: step.runId, stepId: { in: step.dependsOn }, state: { not: 'completed' } },
        select: { stepId: true },
      });
      if (unmet.length > 0) return { status: 'unmet' as const, unmet: unmet.map((row) => row.stepId) };
      const [queued] = await tx.$queryRaw<Array<StepJob & { stepId: string; runId: string }>>`
        UPDATE steps SET state = 'queued', attempt = attempt + 1, failures = 0, recoveries = 0, error = NULL, output = NULL, "timeoutOverrideMs" = ${timeoutMs ?? null}::int,
          "startedAt" = NULL, "finishedAt" = NULL, "queuedAt" = now(), "availableAt" = now()
        WHERE id = ${taskId}::uuid RETURNING id AS "taskId", attempt, "stepId", "runId"`;
      // The steps it blocked wait for it again; those still behind another failed step are blocked again.
      await tx.$executeRaw`
        UPDATE steps s SET state = 'waiting',
          "remainingDeps" = (SELECT count(*) FROM steps d WHERE d."runId" = s."runId" AND d."stepId" = ANY(s."dependsOn") AND d.state <> 'completed')::int
        WHERE s."runId" = ${step.runId}::uuid AND s.state = 'blocked'`;
      await this.blockDownstream(tx, step.runId);
      await tx.$executeRaw`
        UPDATE runs SET state = CASE WHEN state IN ('failed', 'cancelled') THEN 'running' ELSE state END, error = NULL, "blockedSteps" = '{}', "finishedAt" = NULL, "lastProgressAt" = now()
        WHERE id = ${step.runId}::uuid`;
      return { status: 'queued' as const, job: { taskId, attempt: queued!.attempt }, runId: step.runId, stepId: step.stepId };
    });
  }

  /**
   * Steps whose lease expired while running (their worker died or lost Postgres): each moves to a
   * new attempt and is queued again; the lost attempt is recorded as `lost`. `runIds` limits it to
   * those runs. Poison steps (found orphaned WORKERS_POISON_AFTER times) are left to
   * `failPoisonSteps`, which the callers run first.
   */
  async recoverOrphans(runIds?: readonly string[]): Promise<Array<StepJob & { runId: string; stepId: string }>> {
    const rows = await this.db.$queryRaw<Array<StepJob & { runId: string; stepId: string }>>`
      WITH recovered AS (
        UPDATE steps s SET state = 'queued', attempt = s.attempt + 1, recoveries = s.recoveries + 1, "leaseOwner" = NULL, "leaseExpiresAt" = NULL,
          "queuedAt" = now(), "availableAt" = now()
        FROM runs r
        WHERE s.state = 'running' AND s."leaseExpiresAt" < now() AND r.id = s."runId" AND r.state = 'running' AND r.queue = ${this.queue}
          AND s.recoveries + 1 < ${this.poisonAfter}::int
          AND (${runIds === undefined}::boolean OR s."runId" = ANY(${runIds ?? []}::uuid[]))
        RETURNING s.id, s.attempt, s."runId", s."stepId"
      ), lost AS (
        UPDATE attempts a SET state = 'lost', "finishedAt" = now(), "durationMs" = (extract(epoch FROM now() - a."startedAt") * 1000)::int,
          error = 'lease expired: worker ' || a."workerId" || ' stopped renewing it'
        FROM recovered WHERE a."taskId" = recovered.id AND a.number = recovered.attempt - 1 AND a.state = 'running'
      )
      SELECT id AS "taskId", attempt, "runId", "stepId" FROM recovered`;
    return rows;
  }

  /**
   * Fails the orphaned steps whose worker died (or hung) holding them for the WORKERS_POISON_AFTER-th
   * time: a step whose processing kills its process would otherwise be recovered, and kill the
   * next worker, for good. Its last attempt is recorded `lost`, the steps below it are blocked, and
   * the run ends failed when nothing else can run, naming the step and why. An operator's retry
   * starts its count again. Answers the failed steps.
   */
  async failPoisonSteps(runIds?: readonly string[]): Promise<Array<{ runId: string; stepId: string; recoveries: number }>> {
    const poisoned = await this.db.$queryRaw<Array<{ id: string; runId: string; stepId: string; attempt: number; recoveries: number }>>`
      SELECT s.id, s."runId", s."stepId", s.attempt, s.recoveries + 1 AS recoveries FROM steps s JOIN runs r ON r.id = s."runId"
      WHERE s.state = 'running' AND s."leaseExpiresAt" < now() AND r.state = 'running' AND r.queue = ${this.queue}
        AND s.recoveries + 1 >= ${this.poisonAfter}::int
        AND (${runIds === undefined}::boolean OR s."runId" = ANY(${runIds ?? []}::uuid[]))
      LIMIT 100`;
    const failed = [];
    for (const step of poisoned) {
      const error = storableText(
        `poison step: its worker died or hung while running it ${step.recoveries} times (WORKERS_POISON_AFTER=${this.poisonAfter}); not run again`,
      );
      const done = await this.db.$transaction(async (tx) => {
        const [run] = await tx.$queryRaw<Array<{ state: string }>>`SELECT state FROM runs WHERE id = ${step.runId}::uuid FOR NO KEY UPDATE`;
        // Fenced like every other change: only the lease that expired, of the attempt seen.
        const changed = await tx.$executeRaw`
          UPDATE steps SET state = 'failed', failures = failures + 1, recoveries = recoveries + 1, error = ${error}, "finishedAt" = now(),
            "leaseOwner" = NULL, "leaseExpiresAt" = NULL
          WHERE id = ${step.id}::uuid AND attempt = ${step.attempt}::int AND state = 'running' AND "leaseExpiresAt" < now()`;
        if (!changed || !run || TERMINAL_RUN.includes(run.state)) return false;
        await tx.$executeRaw`
          UPDATE attempts SET state = 'lost', "finishedAt" = now(), "durationMs" = (extract(epoch FROM now() - "startedAt") * 1000)::int,
            error = 'lease expired: worker ' || "workerId" || ' stopped renewing it'
          WHERE "taskId" = ${step.id}::uuid AND number = ${step.attempt}::int AND state = 'running'`;
        await tx.$executeRaw`UPDATE runs SET "lastProgressAt" = now() WHERE id = ${step.runId}::uuid`;
        await this.blockDownstream(tx, step.runId);
        await this.settleRun(tx, step.runId);
        return true;
      });
      if (done) failed.push({ runId: step.runId, stepId: step.stepId, recoveries: step.recoveries });
    }
    return failed;
  }

  /** The owner and team of every run holding a step whose lease expired (to recover those a caller may change). */
  orphanedRuns() {
    return this.db.$queryRaw<Array<{ id: string; owner: string | null; team: string | null }>>`
      SELECT r.id, r.owner, r.team FROM runs r
      WHERE r.state = 'running' AND r.queue = ${this.queue} AND EXISTS (SELECT 1 FROM steps s WHERE s."runId" = r.id AND s.state = 'running' AND s."leaseExpiresAt" < now())`;
  }

  /** Runs holding a step whose lease expired, of those the caller may read (`scope`). */
  async orphaned(scope: ReadScope, limit: number, offset: number) {
    const { all, owner, teams } = scopeParams(scope);
    const runs = await this.db.$queryRaw<Array<{ id: string; total: number }>>`
      SELECT r.id, count(*) OVER ()::int AS total FROM runs r
      WHERE r.state = 'running' AND r.queue = ${this.queue} AND EXISTS (SELECT 1 FROM steps s WHERE s."runId" = r.id AND s.state = 'running' AND s."leaseExpiresAt" < now())
        AND (${all}::boolean OR r.owner = ${owner} OR r.team = ANY(${teams}::text[]))
      ORDER BY r."createdAt" LIMIT ${limit}::int OFFSET ${offset}::int`;
    const ids = runs.map((run) => run.id);
    const [details, steps] = await Promise.all([
      this.db.run.findMany({ where: { id: { in: ids } }, select: { id: true, name: true, state: true } }),
      this.db.step.findMany({ where: { runId: { in: ids }, state: 'running', leaseExpiresAt: { lt: new Date() } }, orderBy: { stepId: 'asc' } }),
    ]);
    return { ids, details, steps, total: runs[0]?.total ?? (offset > 0 ? await this.countOrphaned(scope) : 0) };
  }

  private async countOrphaned(scope: ReadScope) {
    const { all, owner, teams } = scopeParams(scope);
    const [row] = await this.db.$queryRaw<Array<{ total: number }>>`
      SELECT count(*)::int AS total FROM runs r WHERE r.state = 'running' AND r.queue = ${this.queue} AND EXISTS (SELECT 1 FROM steps s WHERE s."runId" = r.id AND s.state = 'running' AND s."leaseExpiresAt" < now())
        AND (${all}::boolean OR r.owner = ${owner} OR r.team = ANY(${teams}::text[]))`;
    return row?.total ?? 0;
  }

  /** Queued steps whose job should have started long ago (a lost Redis job): to queue again. */
  stuckQueued(olderThanMs: number, limit = 500) {
    return this.db.$queryRaw<StepJob[]>`
      SELECT s.id AS "taskId", s.attempt FROM steps s JOIN runs r ON r.id = s."runId"
      WHERE s.state = 'queued' AND s."availableAt" < now() - (${olderThanMs}::int * interval '1 millisecond') AND r.state IN ('pending', 'running') AND r.queue = ${this.queue}
      LIMIT ${limit}::int`;
  }

  /**
   * The watchdog: runs that made no progress for `idleMs` while no step of theirs holds a live
   * lease or waits for a retry end `failed`, naming the steps that were stuck.
   */
  async failStalled(idleMs: number): Promise<string[]> {
    const stalled = await this.db.$queryRaw<Array<{ id: string }>>`
      SELECT r.id FROM runs r
      WHERE r.state IN ('pending', 'running') AND r.queue = ${this.queue}
        AND GREATEST(r."lastProgressAt", (SELECT max(GREATEST(s."startedAt", s."finishedAt")) FROM steps s WHERE s."runId" = r.id)) < now() - (${idleMs}::int * interval '1 millisecond')
        AND NOT EXISTS (SELECT 1 FROM steps s WHERE s."runId" = r.id AND ((s.state = 'running' AND s."leaseExpiresAt" > now()) OR (s.state = 'queued' AND s."availableAt" > now())))
      LIMIT 100`;
    const ended: string[] = [];
    for (const { id } of stalled) {
      const done = await this.db.$transaction(async (tx) => {
        const [run] = await tx.$queryRaw<Array<{ state: string; idle: boolean }>>`
          SELECT state, GREATEST("lastProgressAt", (SELECT max(GREATEST(s."startedAt", s."finishedAt")) FROM steps s WHERE s."runId" = runs.id)) < now() - (${idleMs}::int * interval '1 millisecond') AS idle
          FROM runs WHERE id = ${id}::uuid FOR NO KEY UPDATE`;
        if (!run || TERMINAL_RUN.includes(run.state) || !run.idle) return false;
        const stuck = await tx.$queryRaw<Array<{ stepId: string }>>`
          UPDATE steps SET state = 'cancelled', error = 'stopped by the watchdog', "finishedAt" = now(), "leaseOwner" = NULL
          WHERE "runId" = ${id}::uuid AND state IN ('waiting', 'queued', 'running', 'blocked') RETURNING "stepId"`;
        await tx.$executeRaw`UPDATE attempts SET state = 'lost', "finishedAt" = now(), error = 'stopped by the watchdog' WHERE "runId" = ${id}::uuid AND state = 'running'`;
        const names = stuck.map((row) => row.stepId).sort();
        await tx.$executeRaw`
          UPDATE runs SET state = 'failed', "finishedAt" = now(), "blockedSteps" = ${names},
            error = ${`no progress for ${Math.round(idleMs / 1000)} s (deadlock suspected); stuck steps: ${names.join(', ')}`}
          WHERE id = ${id}::uuid AND state IN ('pending', 'running')`;
        return true;
      });
      if (done) ended.push(id);
    }
    return ended;
  }
}

/** The step ids (not `input`) whose outputs a step's templates read. */
function referencedSteps(spec: workers.StepDefinition): string[] {
  const found = new Set<string>();
  const walk = (value: unknown) => {
    if (typeof value === 'string') for (const match of value.matchAll(/\{\{\s*([A-Za-z_][A-Za-z0-9_-]*)/g)) found.add(match[1]!);
    else if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object') Object.values(value).forEach(walk);
  };
  walk([spec.url, spec.headers, spec.body, spec.input, spec.params, spec.statement]);
  found.delete('input');
  return [...found];
}
