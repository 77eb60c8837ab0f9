import type { Caller } from '@platform/http';
import type { TypedQueue } from '@platform/queues';
import type { tracing } from '@platform/contracts';
import { UnrecoverableError } from 'bullmq';
import type { z } from 'zod';
import { rules } from '../access';
import type { projectionQueue } from './embeddings.queue';
import type { EmbeddingFilter, EmbeddingsRepository, ProjectionRow } from './embeddings.repository';
import { project } from './projection';

type Projection = z.infer<typeof tracing.Projection>;

/** Embedding vectors kept from spans: counts, sizes, and 2-D/3-D projections computed by a job. */
export class EmbeddingsService {
  constructor(
    private readonly embeddings: EmbeddingsRepository,
    private readonly queue: TypedQueue<typeof projectionQueue.payload>,
    private readonly basePath: string,
  ) {}

  async count(filter: EmbeddingFilter): Promise<z.infer<typeof tracing.EmbeddingCount>> {
    const projects = await this.embeddings.countByProject(filter);
    return { count: projects.reduce((sum, row) => sum + row.count, 0), projects };
  }

  async dimensions(filter: EmbeddingFilter): Promise<z.infer<typeof tracing.EmbeddingDimensions>> {
    return { dimensions: await this.embeddings.dimensions(filter) };
  }

  /** A projection of the caller's (the spans' embeddings are the platform's; the projection run is theirs). */
  async reproject(who: Caller, body: z.infer<typeof tracing.ReprojectRequest>): Promise<Projection> {
    const owned = rules.projection.ownerFor(who, body.team);
    const row = await this.embeddings.createProjection({
      method: body.method,
      dimensions: body.dimensions,
      project: body.project,
      model: body.model,
      vectorSize: body.vector_size,
      ...owned,
    });
    await this.queue.add('reproject', { projectionId: row.id, limit: body.limit }, { jobId: row.id, attempts: 2 });
    return this.view(row);
  }

  async get(who: Caller, id: string, limit: number): Promise<Projection> {
    const row = rules.projection.readable(who, await this.embeddings.getProjection(id), id);
    return { ...this.view(row), points: row.status === 'completed' ? await this.embeddings.points(id, limit) : [] };
  }

  private view(row: ProjectionRow): Projection {
    return {
      id: row.id,
      method: row.method,
      dimensions: row.dimensions,
      project: row.project,
      model: row.model,
      vector_size: row.vectorSize,
      status: row.status as Projection['status'],
      count: row.count,
      error: row.error,
      created_at: row.createdAt.toISOString(),
      completed_at: row.completedAt?.toISOString() ?? null,
      owner: row.owner,
      team: row.team,
      status_url: `${this.basePath}/embeddings/projections/${row.id}`,
    };
  }

  /** The job: load the vectors, project them, store the coordinates. */
  async process(payload: z.infer<typeof projectionQueue.payload>): Promise<void> {
    const row = await this.embeddings.getProjection(payload.projectionId);
    if (!row) throw new UnrecoverableError(`projection ${payload.projectionId} no longer exists`);
    await this.embeddings.setStatus(row.id, 'running');
    try {
      const filter = { project: row.project ?? undefined, model: row.model ?? undefined };
      const size = row.vectorSize ?? (await this.embeddings.commonSize(filter));
      if (size === null) throw new UnrecoverableError('no embeddings match');
      const vectors = await this.embeddings.vectors(filter, size, payload.limit);
      let result;
      try {
        result = await project(
          vectors.map((item) => item.vector),
          row.method as 'umap' | 'pca',
          row.dimensions as 2 | 3,
        );
      } catch (error) {
        throw new UnrecoverableError((error as Error).message);
      }
      await this.embeddings.complete(
        row.id,
        size,
        vectors.map((item, i) => ({ embeddingId: item.id, coordinates: result.coordinates[i] })),
      );
    } catch (error) {
      await this.embeddings.setStatus(row.id, 'failed', (error as Error).message);
      throw error;
    }
  }
}
