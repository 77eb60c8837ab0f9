-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "mcp-registry";

-- CreateTable
CREATE TABLE "Connection" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "protocol" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'active',
    "endpoint" JSONB NOT NULL,
    "declaredCapabilities" TEXT[],
    "capabilityNames" TEXT[],
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "capacity" INTEGER NOT NULL DEFAULT 10,
    "healthCheckEnabled" BOOLEAN NOT NULL DEFAULT true,
    "healthCheckInterval" INTEGER NOT NULL DEFAULT 30,
    "healthCheckTimeout" INTEGER NOT NULL DEFAULT 5000,
    "healthStatus" TEXT NOT NULL DEFAULT 'initializing',
    "lastCheckAt" TIMESTAMP(3),
    "lastResponseTime" DOUBLE PRECISION,
    "lastError" TEXT,
    "upSince" TIMESTAMP(3),
    "checksPerformed" INTEGER NOT NULL DEFAULT 0,
    "failedChecks" INTEGER NOT NULL DEFAULT 0,
    "recentChecks" BOOLEAN[],
    "totalRequests" INTEGER NOT NULL DEFAULT 0,
    "failedRequests" INTEGER NOT NULL DEFAULT 0,
    "totalLatencyMs" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "createdBy" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "lastActiveAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "disconnectedAt" TIMESTAMP(3),

    CONSTRAINT "Connection_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Tool" (
    "connectionId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "inputSchema" JSONB NOT NULL,

    CONSTRAINT "Tool_pkey" PRIMARY KEY ("connectionId","name")
);

-- CreateTable
CREATE TABLE "ToolCall" (
    "id" BIGSERIAL NOT NULL,
    "connectionId" UUID NOT NULL,
    "tool" TEXT NOT NULL,
    "success" BOOLEAN NOT NULL,
    "latencyMs" DOUBLE PRECISION NOT NULL,
    "error" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ToolCall_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SupervisedProcess" (
    "host" TEXT NOT NULL,
    "pid" INTEGER NOT NULL,
    "startTicks" BIGINT NOT NULL,
    "instanceId" TEXT NOT NULL,
    "connectionId" UUID NOT NULL,
    "command" TEXT NOT NULL,
    "workDir" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SupervisedProcess_pkey" PRIMARY KEY ("host","pid","startTicks")
);

-- CreateIndex
CREATE INDEX "Connection_status_healthStatus_idx" ON "Connection"("status", "healthStatus");

-- CreateIndex
CREATE INDEX "Connection_capabilityNames_idx" ON "Connection" USING GIN ("capabilityNames");

-- CreateIndex
CREATE INDEX "Connection_name_idx" ON "Connection"("name");

-- CreateIndex
CREATE INDEX "ToolCall_connectionId_createdAt_idx" ON "ToolCall"("connectionId", "createdAt");

-- CreateIndex
CREATE INDEX "ToolCall_createdAt_idx" ON "ToolCall"("createdAt");

-- CreateIndex
CREATE INDEX "ToolCall_tool_idx" ON "ToolCall"("tool");

-- CreateIndex
CREATE INDEX "SupervisedProcess_instanceId_idx" ON "SupervisedProcess"("instanceId");

-- AddForeignKey
ALTER TABLE "Tool" ADD CONSTRAINT "Tool_connectionId_fkey" FOREIGN KEY ("connectionId") REFERENCES "Connection"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ToolCall" ADD CONSTRAINT "ToolCall_connectionId_fkey" FOREIGN KEY ("connectionId") REFERENCES "Connection"("id") ON DELETE CASCADE ON UPDATE CASCADE;

