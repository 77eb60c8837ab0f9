-- AlterTable
ALTER TABLE "definitions" ADD COLUMN     "owner" TEXT,
ADD COLUMN     "registeredBy" TEXT,
ADD COLUMN     "team" TEXT;

-- AlterTable
ALTER TABLE "runs" ADD COLUMN     "owner" TEXT,
ADD COLUMN     "team" TEXT;

-- CreateIndex
CREATE INDEX "definitions_owner_idx" ON "definitions"("owner");

-- CreateIndex
CREATE INDEX "definitions_team_idx" ON "definitions"("team");

-- CreateIndex
CREATE INDEX "runs_owner_createdAt_idx" ON "runs"("owner", "createdAt");

-- CreateIndex
CREATE INDEX "runs_team_createdAt_idx" ON "runs"("team", "createdAt");
