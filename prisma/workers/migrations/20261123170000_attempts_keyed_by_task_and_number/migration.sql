-- Claiming a step inserts its attempt and completing it updates that attempt, on every step: what
-- follows makes both cheaper (measured with npm run bench:workers).

-- An attempt is named by its task and number (the fencing token): that is its key. The random "id"
-- only added another unique index to maintain on every claim.
ALTER TABLE "attempts" DROP CONSTRAINT "attempts_pkey";
ALTER TABLE "attempts" DROP COLUMN "id";
DROP INDEX "attempts_taskId_number_key";
ALTER TABLE "attempts" ADD CONSTRAINT "attempts_pkey" PRIMARY KEY ("taskId", "number");

-- Attempts go with their run. The foreign key to the step was checked for every claimed step by
-- locking the step row the same statement had just updated, which made claims several times slower.
ALTER TABLE "attempts" DROP CONSTRAINT "attempts_taskId_fkey";
ALTER TABLE "attempts" ADD CONSTRAINT "attempts_runId_fkey" FOREIGN KEY ("runId") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Statistics find attempts by their start, which never changes, and pages keep room for the update
-- that ends an attempt: it changes no indexed column, so it writes no index entry (a HOT update).
DROP INDEX "attempts_type_finishedAt_idx";
CREATE INDEX "attempts_type_startedAt_idx" ON "attempts"("type", "startedAt");
ALTER TABLE "attempts" SET (fillfactor = 80);
