-- AlterTable
ALTER TABLE "agents" ADD COLUMN     "owner" TEXT,
ADD COLUMN     "team" TEXT;

-- AlterTable
ALTER TABLE "messages" ADD COLUMN     "recipientOwner" TEXT,
ADD COLUMN     "recipientTeam" TEXT,
ADD COLUMN     "sentBy" TEXT;

-- CreateIndex
CREATE INDEX "agents_owner_idx" ON "agents"("owner");

-- CreateIndex
CREATE INDEX "agents_team_idx" ON "agents"("team");

-- CreateIndex
CREATE INDEX "messages_sentBy_idx" ON "messages"("sentBy");

-- CreateIndex
CREATE INDEX "messages_recipientOwner_idx" ON "messages"("recipientOwner");

-- CreateIndex
CREATE INDEX "messages_recipientTeam_idx" ON "messages"("recipientTeam");
