-- CreateIndex
CREATE INDEX "Agent_origin_name_namespace_idx" ON "Agent"("origin", "name", "namespace");

-- CreateIndex
CREATE INDEX "Agent_origin_createdAt_idx" ON "Agent"("origin", "createdAt");

-- CreateIndex
CREATE INDEX "Agent_origin_updatedAt_idx" ON "Agent"("origin", "updatedAt");
