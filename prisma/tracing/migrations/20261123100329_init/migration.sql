-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "tracing";

-- CreateTable
CREATE TABLE "spans" (
    "project" TEXT NOT NULL,
    "trace_id" TEXT NOT NULL,
    "span_id" TEXT NOT NULL,
    "parent_span_id" TEXT,
    "name" TEXT NOT NULL,
    "kind" SMALLINT NOT NULL,
    "status_code" SMALLINT NOT NULL,
    "status_message" TEXT,
    "start_time" TIMESTAMPTZ(6) NOT NULL,
    "start_unix_nano" BIGINT NOT NULL,
    "end_unix_nano" BIGINT NOT NULL,
    "duration_nano" BIGINT NOT NULL,
    "trace_state" TEXT,
    "flags" INTEGER NOT NULL DEFAULT 0,
    "attributes" JSONB NOT NULL,
    "events" JSONB NOT NULL,
    "links" JSONB NOT NULL,
    "resource" JSONB NOT NULL,
    "scope" JSONB NOT NULL,
    "dropped" JSONB,
    "ingested_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "spans_pkey" PRIMARY KEY ("trace_id","span_id","start_time")
);

-- CreateTable
CREATE TABLE "embeddings" (
    "id" BIGSERIAL NOT NULL,
    "project" TEXT NOT NULL,
    "trace_id" TEXT NOT NULL,
    "span_id" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "model" TEXT,
    "text" TEXT,
    "dimensions" INTEGER NOT NULL,
    "vector" DOUBLE PRECISION[],
    "start_time" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "embeddings_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "projections" (
    "id" UUID NOT NULL,
    "method" TEXT NOT NULL,
    "dimensions" INTEGER NOT NULL,
    "project" TEXT,
    "model" TEXT,
    "vector_size" INTEGER,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "count" INTEGER NOT NULL DEFAULT 0,
    "error" TEXT,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completed_at" TIMESTAMPTZ(6),

    CONSTRAINT "projections_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "projection_points" (
    "projection_id" UUID NOT NULL,
    "embedding_id" BIGINT NOT NULL,
    "coordinates" DOUBLE PRECISION[],

    CONSTRAINT "projection_points_pkey" PRIMARY KEY ("projection_id","embedding_id")
);

-- CreateTable
CREATE TABLE "retention_config" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "retention_days" INTEGER NOT NULL DEFAULT 30,
    "max_spans_per_project" INTEGER,
    "project_span_caps" JSONB NOT NULL DEFAULT '{}',
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "retention_config_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "datasets" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "description" TEXT,
    "data" JSONB NOT NULL,
    "example_count" INTEGER NOT NULL,
    "created_by" TEXT,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "datasets_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "evaluations" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "dataset_id" UUID NOT NULL,
    "metrics" JSONB NOT NULL,
    "target" JSONB,
    "total" INTEGER NOT NULL,
    "created_by" TEXT,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completed_at" TIMESTAMPTZ(6),

    CONSTRAINT "evaluations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "evaluation_results" (
    "evaluation_id" UUID NOT NULL,
    "position" INTEGER NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "output" JSONB,
    "scores" JSONB,
    "trace_id" TEXT,
    "latency_ms" DOUBLE PRECISION,
    "error" TEXT,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "evaluation_results_pkey" PRIMARY KEY ("evaluation_id","position")
);

-- CreateIndex
CREATE INDEX "spans_trace_id_idx" ON "spans"("trace_id");

-- CreateIndex
CREATE INDEX "spans_project_start_time_idx" ON "spans"("project", "start_time" DESC);

-- CreateIndex
CREATE INDEX "spans_project_name_start_time_idx" ON "spans"("project", "name", "start_time" DESC);

-- CreateIndex
CREATE INDEX "spans_project_status_code_start_time_idx" ON "spans"("project", "status_code", "start_time" DESC);

-- CreateIndex
CREATE INDEX "embeddings_project_dimensions_model_idx" ON "embeddings"("project", "dimensions", "model");

-- CreateIndex
CREATE INDEX "embeddings_start_time_idx" ON "embeddings"("start_time");

-- CreateIndex
CREATE UNIQUE INDEX "embeddings_trace_id_span_id_position_key" ON "embeddings"("trace_id", "span_id", "position");

-- CreateIndex
CREATE UNIQUE INDEX "datasets_name_version_key" ON "datasets"("name", "version");

-- CreateIndex
CREATE INDEX "evaluations_created_at_idx" ON "evaluations"("created_at");

-- CreateIndex
CREATE INDEX "evaluation_results_evaluation_id_status_idx" ON "evaluation_results"("evaluation_id", "status");

-- AddForeignKey
ALTER TABLE "projection_points" ADD CONSTRAINT "projection_points_projection_id_fkey" FOREIGN KEY ("projection_id") REFERENCES "projections"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "projection_points" ADD CONSTRAINT "projection_points_embedding_id_fkey" FOREIGN KEY ("embedding_id") REFERENCES "embeddings"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "evaluations" ADD CONSTRAINT "evaluations_dataset_id_fkey" FOREIGN KEY ("dataset_id") REFERENCES "datasets"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "evaluation_results" ADD CONSTRAINT "evaluation_results_evaluation_id_fkey" FOREIGN KEY ("evaluation_id") REFERENCES "evaluations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Spans are partitioned by time (native declarative partitioning, one partition per UTC day, named
-- spans_pYYYYMMDD and created on demand by the service), so retention drops whole partitions.
-- Prisma cannot declare a partitioned table: the table above is replaced by one with the same
-- columns, key and indexes (indexes declared on the parent are created on every partition).
DROP TABLE "spans";

CREATE TABLE "spans" (
    "project" TEXT NOT NULL,
    "trace_id" TEXT NOT NULL,
    "span_id" TEXT NOT NULL,
    "parent_span_id" TEXT,
    "name" TEXT NOT NULL,
    "kind" SMALLINT NOT NULL,
    "status_code" SMALLINT NOT NULL,
    "status_message" TEXT,
    "start_time" TIMESTAMPTZ(6) NOT NULL,
    "start_unix_nano" BIGINT NOT NULL,
    "end_unix_nano" BIGINT NOT NULL,
    "duration_nano" BIGINT NOT NULL,
    "trace_state" TEXT,
    "flags" INTEGER NOT NULL DEFAULT 0,
    "attributes" JSONB NOT NULL,
    "events" JSONB NOT NULL,
    "links" JSONB NOT NULL,
    "resource" JSONB NOT NULL,
    "scope" JSONB NOT NULL,
    "dropped" JSONB,
    "ingested_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "spans_pkey" PRIMARY KEY ("trace_id","span_id","start_time")
) PARTITION BY RANGE ("start_time");

CREATE INDEX "spans_trace_id_idx" ON "spans"("trace_id");
CREATE INDEX "spans_project_start_time_idx" ON "spans"("project", "start_time" DESC);
CREATE INDEX "spans_project_name_start_time_idx" ON "spans"("project", "name", "start_time" DESC);
CREATE INDEX "spans_project_status_code_start_time_idx" ON "spans"("project", "status_code", "start_time" DESC);

INSERT INTO "retention_config" ("id") VALUES (1) ON CONFLICT DO NOTHING;
