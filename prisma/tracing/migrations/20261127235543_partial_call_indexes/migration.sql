-- Most spans are neither a model call nor part of a session: index only those that are, so that
-- ingesting every other span pays for no index of these columns. Partial indexes cannot be written
-- in the Prisma datamodel, so schema.prisma names them in a comment on `Span`.

-- DropIndex
DROP INDEX "spans_session_id_start_time_idx";

-- DropIndex
DROP INDEX "spans_model_start_time_idx";

-- CreateIndex
CREATE INDEX "spans_session_id_start_time_idx" ON "spans"("session_id", "start_time") WHERE "session_id" IS NOT NULL;

-- CreateIndex
CREATE INDEX "spans_model_start_time_idx" ON "spans"("model", "start_time") WHERE "model" IS NOT NULL;

-- CreateIndex: sessions filtered by user
CREATE INDEX "spans_user_id_start_time_idx" ON "spans"("user_id", "start_time") WHERE "user_id" IS NOT NULL;
