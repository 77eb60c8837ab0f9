import type { tracing } from '@platform/contracts';
import type { z } from 'zod';
import type { IngestBuffer } from '../ingest/ingest-buffer';
import type { SpansRepository } from '../spans/spans.repository';
import type { ConfigRepository, RetentionSettings } from './config.repository';

const DAY_MS = 86_400_000;

/**
 * Retention by age (whole day partitions dropped, the boundary day trimmed) and by count (each
 * project keeps its newest N spans), run by the scheduled job or by `POST /api/gc`.
 */
export class RetentionService {
  private cached: { settings: RetentionSettings; at: number } | undefined;

  constructor(
    private readonly config: ConfigRepository,
    private readonly spans: SpansRepository,
    private readonly buffer: IngestBuffer,
    private readonly cacheMs = 10_000,
  ) {}

  async settings(fresh = false): Promise<RetentionSettings> {
    if (!fresh && this.cached && Date.now() - this.cached.at < this.cacheMs) return this.cached.settings;
    const settings = await this.config.get();
    this.cached = { settings, at: Date.now() };
    return settings;
  }

  retentionDays = async (): Promise<number> => (await this.settings()).retentionDays;

  view(settings: RetentionSettings): z.infer<typeof tracing.RetentionConfig> {
    return {
      retention_days: settings.retentionDays,
      max_spans_per_project: settings.maxSpansPerProject,
      project_span_caps: settings.projectSpanCaps,
      updated_at: settings.updatedAt.toISOString(),
    };
  }

  async update(change: z.infer<typeof tracing.RetentionConfigUpdate>): Promise<RetentionSettings> {
    const settings = await this.config.update({
      retentionDays: change.retention_days,
      maxSpansPerProject: change.max_spans_per_project,
      projectSpanCaps: change.project_span_caps,
    });
    this.cached = { settings, at: Date.now() };
    return settings;
  }

  /** Applies both retention rules now. */
  async run(now = Date.now()): Promise<z.infer<typeof tracing.GcResult>> {
    const settings = await this.settings(true);
    // Spans still in the buffer are committed first, so the rules see everything accepted so far.
    await this.buffer.flush();
    const cutoff = new Date(now - settings.retentionDays * DAY_MS);
    const dropped: string[] = [];
    let byAge = 0;
    for (const partition of await this.spans.listPartitions()) {
      if (partition.upper && partition.upper.getTime() <= cutoff.getTime()) {
        byAge += await this.spans.dropPartition(partition.name);
        dropped.push(partition.name);
      }
    }
    // The partition that straddles the cutoff keeps only its newer spans.
    byAge += (await this.spans.deleteSpansBefore(cutoff)).spans;
    const embeddings = await this.spans.deleteEmbeddingsBefore(cutoff);
    let byCap = 0;
    const caps = settings.projectSpanCaps;
    if (settings.maxSpansPerProject !== null || Object.keys(caps).length > 0) {
      const projects = await this.spans.projects();
      for (const project of projects) {
        const cap = caps[project] ?? settings.maxSpansPerProject;
        if (cap !== null && cap !== undefined) byCap += await this.spans.enforceCap(project, cap);
      }
    }
    return {
      partitions_dropped: dropped.sort(),
      spans_deleted: byAge + byCap,
      spans_deleted_by_age: byAge,
      spans_deleted_by_cap: byCap,
      embeddings_deleted: embeddings,
      heap_used_bytes: process.memoryUsage().heapUsed,
    };
  }
}
