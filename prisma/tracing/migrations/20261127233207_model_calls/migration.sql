-- Model calls and sessions, read from GenAI / OpenInference attributes at ingestion, as columns of
-- spans: they live and go with their span's day partition. Spans stored earlier keep NULLs.

-- AlterTable
ALTER TABLE "spans" ADD COLUMN     "cost" DOUBLE PRECISION,
ADD COLUMN     "input_tokens" BIGINT,
ADD COLUMN     "model" TEXT,
ADD COLUMN     "model_system" TEXT,
ADD COLUMN     "output_tokens" BIGINT,
ADD COLUMN     "session_id" TEXT,
ADD COLUMN     "user_id" TEXT;

-- CreateIndex
CREATE INDEX "spans_session_id_start_time_idx" ON "spans"("session_id", "start_time");

-- CreateIndex
CREATE INDEX "spans_model_start_time_idx" ON "spans"("model", "start_time");
