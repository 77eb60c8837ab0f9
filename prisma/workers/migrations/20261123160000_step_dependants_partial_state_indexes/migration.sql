-- Each step lists the steps that depend on it, so that a completion finds its dependants through
-- the (runId, stepId) index instead of searching the run's steps for its name in "dependsOn".
ALTER TABLE "steps" ADD COLUMN "dependants" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[];

UPDATE "steps" AS s
   SET "dependants" = ARRAY(SELECT w."stepId" FROM "steps" AS w
                             WHERE w."runId" = s."runId" AND s."stepId" = ANY (w."dependsOn")
                             ORDER BY w."stepId")
 WHERE EXISTS (SELECT 1 FROM "steps" AS w WHERE w."runId" = s."runId" AND s."stepId" = ANY (w."dependsOn"));

-- The reaper's lookups (expired leases, queued steps whose job is overdue) only ever concern
-- running or queued steps. Indexes led by "state" covered every state, and under a fast-changing
-- table with stale statistics the planner chose them for the per-step hot path (claims and
-- completions scanned tens of thousands of index entries each). Partial indexes cannot be chosen
-- for any other state.
DROP INDEX "steps_state_leaseExpiresAt_idx";
DROP INDEX "steps_state_availableAt_idx";
CREATE INDEX "steps_running_leaseExpiresAt_idx" ON "steps"("leaseExpiresAt") WHERE "state" = 'running';
CREATE INDEX "steps_queued_availableAt_idx" ON "steps"("availableAt") WHERE "state" = 'queued';
