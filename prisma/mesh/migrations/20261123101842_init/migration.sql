-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "mesh";

-- CreateTable
CREATE TABLE "agents" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "capabilities" TEXT[],
    "endpoint" TEXT,
    "checkType" TEXT NOT NULL DEFAULT 'ttl',
    "checkTarget" TEXT,
    "ttlMs" INTEGER NOT NULL DEFAULT 30000,
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "status" TEXT NOT NULL DEFAULT 'passing',
    "ejected" BOOLEAN NOT NULL DEFAULT false,
    "consecutiveFailures" INTEGER NOT NULL DEFAULT 0,
    "consecutivePasses" INTEGER NOT NULL DEFAULT 0,
    "criticalSince" TIMESTAMP(3),
    "lastHeartbeatAt" TIMESTAMP(3),
    "lastCheckAt" TIMESTAMP(3),
    "latencyMs" DOUBLE PRECISION,
    "nodeId" TEXT,
    "registeredAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "agents_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "health_checks" (
    "id" BIGSERIAL NOT NULL,
    "agentId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "latencyMs" DOUBLE PRECISION,
    "output" TEXT,
    "checkedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "health_checks_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "messages" (
    "id" UUID NOT NULL,
    "messageId" TEXT NOT NULL,
    "sender" TEXT,
    "agentId" TEXT NOT NULL,
    "capability" TEXT,
    "payload" JSONB NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'queued',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "lastError" TEXT,
    "deadReason" TEXT,
    "expiresAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deliveredAt" TIMESTAMP(3),
    "ackedAt" TIMESTAMP(3),
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "messages_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "cluster_nodes" (
    "id" TEXT NOT NULL,
    "cluster" TEXT NOT NULL DEFAULT 'default',
    "host" TEXT NOT NULL,
    "httpPort" INTEGER NOT NULL,
    "grpcPort" INTEGER NOT NULL,
    "startedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastSeenAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "cluster_nodes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "cluster_fences" (
    "name" TEXT NOT NULL,
    "token" BIGINT NOT NULL,
    "holder" TEXT NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "cluster_fences_pkey" PRIMARY KEY ("name")
);

-- CreateTable
CREATE TABLE "settings" (
    "key" TEXT NOT NULL,
    "value" JSONB NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "settings_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE INDEX "agents_nodeId_idx" ON "agents"("nodeId");

-- CreateIndex
CREATE INDEX "agents_capabilities_idx" ON "agents" USING GIN ("capabilities");

-- CreateIndex
CREATE INDEX "health_checks_agentId_checkedAt_idx" ON "health_checks"("agentId", "checkedAt");

-- CreateIndex
CREATE INDEX "messages_messageId_idx" ON "messages"("messageId");

-- CreateIndex
CREATE INDEX "messages_agentId_state_idx" ON "messages"("agentId", "state");

-- CreateIndex
CREATE INDEX "messages_state_updatedAt_idx" ON "messages"("state", "updatedAt");

-- CreateIndex
CREATE INDEX "messages_createdAt_idx" ON "messages"("createdAt");

-- CreateIndex
CREATE INDEX "cluster_nodes_cluster_idx" ON "cluster_nodes"("cluster");

-- AddForeignKey
ALTER TABLE "health_checks" ADD CONSTRAINT "health_checks_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;
