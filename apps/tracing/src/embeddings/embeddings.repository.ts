import type { Db } from '../database';

export interface ProjectionRow {
  id: string;
  method: string;
  dimensions: number;
  project: string | null;
  model: string | null;
  vectorSize: number | null;
  status: string;
  count: number;
  error: string | null;
  createdAt: Date;
  completedAt: Date | null;
  owner: string | null;
  team: string | null;
}

export interface EmbeddingFilter {
  project?: string;
  model?: string;
}

function where(filter: EmbeddingFilter, params: unknown[]): string {
  const parts = ['true'];
  if (filter.project) parts.push(`project = $${params.push(filter.project)}`);
  if (filter.model) parts.push(`model = $${params.push(filter.model)}`);
  return parts.join(' AND ');
}

export class EmbeddingsRepository {
  constructor(private readonly db: Db) {}

  async countByProject(filter: EmbeddingFilter): Promise<Array<{ project: string; count: number }>> {
    const params: unknown[] = [];
    return this.db.$queryRawUnsafe(
      `SELECT project, count(*)::int AS count FROM embeddings WHERE ${where(filter, params)} GROUP BY project ORDER BY project`,
      ...params,
    );
  }

  async dimensions(filter: EmbeddingFilter): Promise<Array<{ dimensions: number; model: string | null; count: number }>> {
    const params: unknown[] = [];
    return this.db.$queryRawUnsafe(
      `SELECT dimensions, model, count(*)::int AS count FROM embeddings WHERE ${where(filter, params)} GROUP BY dimensions, model ORDER BY count DESC, dimensions`,
      ...params,
    );
  }

  /** The vector size most embeddings matching the filter have. */
  async commonSize(filter: EmbeddingFilter): Promise<number | null> {
    const params: unknown[] = [];
    const [row] = await this.db.$queryRawUnsafe<Array<{ dimensions: number }>>(
      `SELECT dimensions FROM embeddings WHERE ${where(filter, params)} GROUP BY dimensions ORDER BY count(*) DESC, dimensions LIMIT 1`,
      ...params,
    );
    return row?.dimensions ?? null;
  }

  /** The newest `limit` vectors of one size. */
  async vectors(filter: EmbeddingFilter, size: number, limit: number): Promise<Array<{ id: bigint; vector: number[] }>> {
    const params: unknown[] = [];
    const clause = where(filter, params);
    params.push(size, limit);
    return this.db.$queryRawUnsafe(
      `SELECT id, vector FROM embeddings WHERE ${clause} AND dimensions = $${params.length - 1} ORDER BY start_time DESC, id DESC LIMIT $${params.length}`,
      ...params,
    );
  }

  createProjection(input: {
    method: string;
    dimensions: number;
    project?: string;
    model?: string;
    vectorSize?: number;
    owner: string;
    team: string | null;
  }): Promise<ProjectionRow> {
    return this.db.projection.create({
      data: {
        method: input.method,
        dimensions: input.dimensions,
        project: input.project ?? null,
        model: input.model ?? null,
        vectorSize: input.vectorSize ?? null,
        owner: input.owner,
        team: input.team,
      },
    });
  }

  getProjection(id: string): Promise<ProjectionRow | null> {
    return this.db.projection.findUnique({ where: { id } });
  }

  async points(id: string, limit: number): Promise<Array<{ embedding_id: string; trace_id: string; span_id: string; coordinates: number[] }>> {
    return this.db.$queryRawUnsafe(
      `SELECT p.embedding_id::text AS embedding_id, e.trace_id, e.span_id, p.coordinates FROM projection_points p JOIN embeddings e ON e.id = p.embedding_id
       WHERE p.projection_id = $1::uuid ORDER BY p.embedding_id LIMIT $2`,
      id,
      limit,
    );
  }

  async setStatus(id: string, status: 'running' | 'failed', error?: string): Promise<void> {
    await this.db.projection.update({ where: { id }, data: { status, error: error?.slice(0, 2000) ?? null } });
  }

  /** Stores every point and completes the projection, in one transaction. */
  async complete(id: string, vectorSize: number, points: Array<{ embeddingId: bigint; coordinates: number[] }>): Promise<void> {
    await this.db.$transaction([
      this.db.projectionPoint.deleteMany({ where: { projectionId: id } }),
      this.db.$executeRawUnsafe(
        `INSERT INTO projection_points (projection_id, embedding_id, coordinates)
         SELECT $1::uuid, e, c::float8[] FROM unnest($2::bigint[], $3::text[]) AS u(e, c)`,
        id,
        points.map((point) => point.embeddingId.toString()),
        points.map((point) => `{${point.coordinates.join(',')}}`),
      ),
      this.db.projection.update({ where: { id }, data: { status: 'completed', count: points.length, vectorSize, completedAt: new Date(), error: null } }),
    ]);
  }
}
