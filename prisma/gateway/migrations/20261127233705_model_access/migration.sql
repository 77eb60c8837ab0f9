-- CreateTable
CREATE TABLE "ModelAccess" (
    "subject" TEXT NOT NULL,
    "models" TEXT[],
    "monthlyTokenBudget" BIGINT,
    "fallbacks" JSONB,
    "updatedBy" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ModelAccess_pkey" PRIMARY KEY ("subject")
);

-- CreateTable
CREATE TABLE "ModelUsage" (
    "subject" TEXT NOT NULL,
    "month" TEXT NOT NULL,
    "promptTokens" BIGINT NOT NULL DEFAULT 0,
    "completionTokens" BIGINT NOT NULL DEFAULT 0,
    "requests" INTEGER NOT NULL DEFAULT 0,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ModelUsage_pkey" PRIMARY KEY ("subject","month")
);
