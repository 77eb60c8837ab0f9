-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "workers";

-- CreateTable
CREATE TABLE "definitions" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "hash" TEXT NOT NULL,
    "steps" JSONB NOT NULL,
    "source" TEXT NOT NULL DEFAULT 'api',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "definitions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "pins" (
    "name" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "pinnedBy" TEXT,
    "pinnedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "pins_pkey" PRIMARY KEY ("name")
);

-- CreateTable
CREATE TABLE "runs" (
    "id" UUID NOT NULL,
    "definitionId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'pending',
    "input" JSONB NOT NULL DEFAULT '{}',
    "error" TEXT,
    "blockedSteps" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "traceId" TEXT NOT NULL,
    "queue" TEXT NOT NULL DEFAULT 'workers.steps',
    "createdBy" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" TIMESTAMP(3),
    "finishedAt" TIMESTAMP(3),
    "lastProgressAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "runs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "steps" (
    "id" UUID NOT NULL,
    "runId" UUID NOT NULL,
    "stepId" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "spec" JSONB NOT NULL,
    "dependsOn" TEXT[],
    "remainingDeps" INTEGER NOT NULL,
    "state" TEXT NOT NULL,
    "attempt" INTEGER NOT NULL DEFAULT 0,
    "failures" INTEGER NOT NULL DEFAULT 0,
    "maxAttempts" INTEGER NOT NULL,
    "timeoutOverrideMs" INTEGER,
    "leaseOwner" TEXT,
    "leaseExpiresAt" TIMESTAMP(3),
    "availableAt" TIMESTAMP(3),
    "queuedAt" TIMESTAMP(3),
    "startedAt" TIMESTAMP(3),
    "finishedAt" TIMESTAMP(3),
    "output" JSONB,
    "error" TEXT,

    CONSTRAINT "steps_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "attempts" (
    "id" UUID NOT NULL,
    "taskId" UUID NOT NULL,
    "runId" UUID NOT NULL,
    "stepId" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "number" INTEGER NOT NULL,
    "workerId" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "idempotencyKey" TEXT NOT NULL,
    "timeoutMs" INTEGER NOT NULL,
    "startedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finishedAt" TIMESTAMP(3),
    "durationMs" INTEGER,
    "error" TEXT,

    CONSTRAINT "attempts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "workers" (
    "id" TEXT NOT NULL,
    "host" TEXT NOT NULL,
    "pid" INTEGER NOT NULL,
    "concurrency" INTEGER NOT NULL,
    "activeTasks" INTEGER NOT NULL DEFAULT 0,
    "taskTypes" TEXT[],
    "startedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastHeartbeatAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "stoppedAt" TIMESTAMP(3),

    CONSTRAINT "workers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "task_types" (
    "type" TEXT NOT NULL,
    "timeoutMs" INTEGER NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "task_types_pkey" PRIMARY KEY ("type")
);

-- CreateTable
CREATE TABLE "settings" (
    "key" TEXT NOT NULL,
    "value" JSONB NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "settings_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE UNIQUE INDEX "definitions_name_version_key" ON "definitions"("name", "version");

-- CreateIndex
CREATE UNIQUE INDEX "definitions_name_hash_key" ON "definitions"("name", "hash");

-- CreateIndex
CREATE INDEX "runs_queue_state_lastProgressAt_idx" ON "runs"("queue", "state", "lastProgressAt");

-- CreateIndex
CREATE INDEX "runs_name_createdAt_idx" ON "runs"("name", "createdAt");

-- CreateIndex
CREATE INDEX "steps_state_leaseExpiresAt_idx" ON "steps"("state", "leaseExpiresAt");

-- CreateIndex
CREATE INDEX "steps_state_availableAt_idx" ON "steps"("state", "availableAt");

-- CreateIndex
CREATE UNIQUE INDEX "steps_runId_stepId_key" ON "steps"("runId", "stepId");

-- CreateIndex
CREATE INDEX "attempts_runId_startedAt_idx" ON "attempts"("runId", "startedAt");

-- CreateIndex
CREATE INDEX "attempts_type_finishedAt_idx" ON "attempts"("type", "finishedAt");

-- CreateIndex
CREATE UNIQUE INDEX "attempts_taskId_number_key" ON "attempts"("taskId", "number");

-- CreateIndex
CREATE INDEX "workers_lastHeartbeatAt_idx" ON "workers"("lastHeartbeatAt");

-- AddForeignKey
ALTER TABLE "runs" ADD CONSTRAINT "runs_definitionId_fkey" FOREIGN KEY ("definitionId") REFERENCES "definitions"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "steps" ADD CONSTRAINT "steps_runId_fkey" FOREIGN KEY ("runId") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "attempts" ADD CONSTRAINT "attempts_taskId_fkey" FOREIGN KEY ("taskId") REFERENCES "steps"("id") ON DELETE CASCADE ON UPDATE CASCADE;
