-- AlterTable
ALTER TABLE "Agent" ADD COLUMN     "team" TEXT;

-- AlterTable
ALTER TABLE "Workflow" ADD COLUMN     "team" TEXT;

-- AlterTable
ALTER TABLE "SiteJob" ADD COLUMN     "team" TEXT;

-- AlterTable
ALTER TABLE "StudioSession" ADD COLUMN     "team" TEXT;

-- CreateIndex
CREATE INDEX "Agent_team_createdAt_idx" ON "Agent"("team", "createdAt");

-- CreateIndex
CREATE INDEX "Workflow_team_createdAt_idx" ON "Workflow"("team", "createdAt");

-- CreateIndex
CREATE INDEX "StudioSession_team_createdAt_idx" ON "StudioSession"("team", "createdAt");
