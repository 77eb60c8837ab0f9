-- Owners and teams (DESIGN.md, "Who owns what"). Rows that exist already keep owner NULL:
-- created before owners were recorded, they are reached only with the admin permission.

-- AlterTable
ALTER TABLE "Agent" ADD COLUMN     "owner" TEXT,
ADD COLUMN     "team" TEXT;

-- AlterTable
ALTER TABLE "Workflow" ADD COLUMN     "owner" TEXT,
ADD COLUMN     "team" TEXT;

-- AlterTable
ALTER TABLE "Execution" ADD COLUMN     "owner" TEXT,
ADD COLUMN     "team" TEXT;

-- AlterTable
ALTER TABLE "Certification" ADD COLUMN     "owner" TEXT,
ADD COLUMN     "team" TEXT;

-- CreateIndex
CREATE INDEX "Agent_owner_idx" ON "Agent"("owner");

-- CreateIndex
CREATE INDEX "Agent_team_idx" ON "Agent"("team");

-- CreateIndex
CREATE INDEX "Workflow_owner_idx" ON "Workflow"("owner");

-- CreateIndex
CREATE INDEX "Workflow_team_idx" ON "Workflow"("team");
