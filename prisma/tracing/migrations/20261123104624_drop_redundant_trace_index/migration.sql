-- The primary key (trace_id, span_id, start_time) already serves a trace by id, so one index less per span written.
-- DropIndex
DROP INDEX "spans_trace_id_idx";
