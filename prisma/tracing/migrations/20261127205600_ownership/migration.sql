-- Owners and teams (DESIGN.md, "Who owns what"). Rows that exist already keep owner NULL:
-- created before owners were recorded, they are reached only with traces:admin. Dataset names
-- become each owner's own: the next version of a name is counted within its owner's datasets.

-- DropIndex
DROP INDEX "datasets_name_version_key";

-- AlterTable
ALTER TABLE "projections" ADD COLUMN     "owner" TEXT,
ADD COLUMN     "team" TEXT;

-- AlterTable
ALTER TABLE "datasets" ADD COLUMN     "owner" TEXT,
ADD COLUMN     "team" TEXT;

-- AlterTable
ALTER TABLE "evaluations" ADD COLUMN     "owner" TEXT,
ADD COLUMN     "team" TEXT;

-- CreateIndex
CREATE INDEX "projections_owner_idx" ON "projections"("owner");

-- CreateIndex
CREATE INDEX "projections_team_idx" ON "projections"("team");

-- CreateIndex
CREATE INDEX "datasets_name_idx" ON "datasets"("name");

-- CreateIndex
CREATE INDEX "datasets_team_idx" ON "datasets"("team");

-- CreateIndex
CREATE UNIQUE INDEX "datasets_owner_name_version_key" ON "datasets"("owner", "name", "version");

-- CreateIndex
CREATE INDEX "evaluations_owner_idx" ON "evaluations"("owner");

-- CreateIndex
CREATE INDEX "evaluations_team_idx" ON "evaluations"("team");
