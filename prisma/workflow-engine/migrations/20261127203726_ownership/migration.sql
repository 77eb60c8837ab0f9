-- AlterTable
ALTER TABLE "Workflow" ADD COLUMN     "owner" TEXT,
ADD COLUMN     "team" TEXT;

-- AlterTable
ALTER TABLE "Execution" ADD COLUMN     "owner" TEXT,
ADD COLUMN     "scope" JSONB,
ADD COLUMN     "team" TEXT;

-- AlterTable
ALTER TABLE "Batch" ADD COLUMN     "owner" TEXT,
ADD COLUMN     "scope" JSONB,
ADD COLUMN     "team" TEXT;

-- CreateTable
CREATE TABLE "VectorCollection" (
    "name" TEXT NOT NULL,
    "owner" TEXT,
    "team" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "VectorCollection_pkey" PRIMARY KEY ("name")
);

-- CreateIndex
CREATE INDEX "Workflow_owner_idx" ON "Workflow"("owner");

-- CreateIndex
CREATE INDEX "Workflow_team_idx" ON "Workflow"("team");

-- Collections that hold documents already get an owner row without an owner: admin-only, as every
-- row stored before owners were recorded.
INSERT INTO "VectorCollection" ("name") SELECT DISTINCT "collection" FROM "VectorDocument" ON CONFLICT DO NOTHING;
