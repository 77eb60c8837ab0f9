-- AlterTable
ALTER TABLE "Connection" ADD COLUMN     "team" TEXT;

-- CreateIndex
CREATE INDEX "Connection_owner_idx" ON "Connection"("owner");

-- CreateIndex
CREATE INDEX "Connection_team_idx" ON "Connection"("team");
