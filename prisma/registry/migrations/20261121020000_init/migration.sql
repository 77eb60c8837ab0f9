-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "registry";

-- CreateTable
CREATE TABLE "Namespace" (
    "name" TEXT NOT NULL,
    "ownerSub" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Namespace_pkey" PRIMARY KEY ("name")
);

-- CreateTable
CREATE TABLE "Agent" (
    "id" UUID NOT NULL,
    "namespace" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "displayName" TEXT,
    "summary" TEXT,
    "homepage" TEXT,
    "repository" TEXT,
    "keywords" TEXT[],
    "declaredCompliance" TEXT[],
    "latestVersion" TEXT,
    "description" TEXT,
    "kind" TEXT,
    "agentKind" TEXT,
    "agentType" TEXT,
    "tier" TEXT,
    "status" TEXT,
    "capabilities" TEXT[],
    "compliance" TEXT[],
    "tags" TEXT[],
    "labels" JSONB NOT NULL DEFAULT '{}',
    "searchTerms" TEXT NOT NULL DEFAULT '',
    "certified" BOOLEAN NOT NULL DEFAULT false,
    "certifiedVersion" TEXT,
    "searchVector" tsvector,
    "createdBy" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "deletedAt" TIMESTAMP(3),

    CONSTRAINT "Agent_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AgentVersion" (
    "id" UUID NOT NULL,
    "agentId" UUID NOT NULL,
    "version" TEXT NOT NULL,
    "prerelease" BOOLEAN NOT NULL,
    "manifestBytes" BYTEA NOT NULL,
    "format" TEXT NOT NULL,
    "digest" TEXT NOT NULL,
    "convertedBytes" BYTEA NOT NULL,
    "convertedDigest" TEXT NOT NULL,
    "document" JSONB NOT NULL,
    "schemaVersion" TEXT NOT NULL,
    "warnings" JSONB NOT NULL DEFAULT '[]',
    "publishedBy" TEXT NOT NULL,
    "publishedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "unpublishedAt" TIMESTAMP(3),
    "unpublishedBy" TEXT,

    CONSTRAINT "AgentVersion_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Certification" (
    "id" UUID NOT NULL,
    "agentId" UUID NOT NULL,
    "version" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "requestedBy" TEXT NOT NULL,
    "requestedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" TIMESTAMP(3),
    "completedAt" TIMESTAMP(3),
    "checks" JSONB NOT NULL DEFAULT '[]',
    "error" TEXT,

    CONSTRAINT "Certification_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AgentDailyStat" (
    "agentId" UUID NOT NULL,
    "day" DATE NOT NULL,
    "views" INTEGER NOT NULL DEFAULT 0,
    "downloads" INTEGER NOT NULL DEFAULT 0,
    "searchAppearances" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "AgentDailyStat_pkey" PRIMARY KEY ("agentId","day")
);

-- CreateIndex
CREATE INDEX "Agent_kind_idx" ON "Agent"("kind");

-- CreateIndex
CREATE INDEX "Agent_tier_idx" ON "Agent"("tier");

-- CreateIndex
CREATE INDEX "Agent_certified_idx" ON "Agent"("certified");

-- CreateIndex
CREATE UNIQUE INDEX "Agent_namespace_name_key" ON "Agent"("namespace", "name");

-- CreateIndex
CREATE UNIQUE INDEX "AgentVersion_agentId_version_key" ON "AgentVersion"("agentId", "version");

-- CreateIndex
CREATE INDEX "Certification_agentId_requestedAt_idx" ON "Certification"("agentId", "requestedAt");

-- CreateIndex
CREATE INDEX "Certification_status_idx" ON "Certification"("status");

-- AddForeignKey
ALTER TABLE "Agent" ADD CONSTRAINT "Agent_namespace_fkey" FOREIGN KEY ("namespace") REFERENCES "Namespace"("name") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AgentVersion" ADD CONSTRAINT "AgentVersion_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Certification" ADD CONSTRAINT "Certification_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AgentDailyStat" ADD CONSTRAINT "AgentDailyStat_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

