-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "local-models";

-- CreateTable
CREATE TABLE "UsageRecord" (
    "id" UUID NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "subject" TEXT NOT NULL,
    "endpoint" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "backend" TEXT NOT NULL,
    "promptTokens" INTEGER NOT NULL,
    "completionTokens" INTEGER NOT NULL,
    "cost" DOUBLE PRECISION NOT NULL,
    "durationMs" DOUBLE PRECISION NOT NULL,
    "status" TEXT NOT NULL,
    "requestId" TEXT,

    CONSTRAINT "UsageRecord_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "UsageRecord_at_idx" ON "UsageRecord"("at");

-- CreateIndex
CREATE INDEX "UsageRecord_subject_at_idx" ON "UsageRecord"("subject", "at");

-- CreateIndex
CREATE INDEX "UsageRecord_model_at_idx" ON "UsageRecord"("model", "at");
