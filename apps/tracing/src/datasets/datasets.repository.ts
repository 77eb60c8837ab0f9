import { readScopeWhere, type ReadScope } from '@platform/http';
import type { Db } from '../database';
import type { Prisma } from '../generated/prisma/client';

export interface DatasetRow {
  id: string;
  name: string;
  version: number;
  description: string | null;
  exampleCount: number;
  createdAt: Date;
  owner: string | null;
  team: string | null;
  data?: unknown;
}

const SUMMARY = { id: true, name: true, version: true, description: true, exampleCount: true, createdAt: true, owner: true, team: true } as const;

export class DatasetsRepository {
  constructor(private readonly db: Db) {}

  /**
   * Stores the next version of the owner's `name` (1 for a name new to them); retried when two
   * writers race for a version.
   */
  async createVersion(input: { name: string; description?: string; data: unknown[]; owner: string; team: string | null }): Promise<DatasetRow> {
    for (let attempt = 0; ; attempt++) {
      const latest = await this.db.dataset.findFirst({
        where: { name: input.name, owner: input.owner },
        orderBy: { version: 'desc' },
        select: { version: true },
      });
      try {
        return await this.db.dataset.create({
          data: {
            name: input.name,
            version: (latest?.version ?? 0) + 1,
            description: input.description ?? null,
            data: input.data as Prisma.InputJsonValue,
            exampleCount: input.data.length,
            createdBy: input.owner,
            owner: input.owner,
            team: input.team,
          },
          select: SUMMARY,
        });
      } catch (error) {
        if ((error as { code?: string }).code !== 'P2002' || attempt >= 3) throw error;
      }
    }
  }

  /** A page of the datasets in the caller's read scope. */
  async list(filter: { name?: string }, scope: ReadScope, limit: number, offset: number): Promise<{ rows: DatasetRow[]; total: number }> {
    const where = { ...readScopeWhere(scope), ...(filter.name && { name: filter.name }) };
    const [rows, total] = await Promise.all([
      this.db.dataset.findMany({ where, orderBy: [{ createdAt: 'desc' }, { version: 'desc' }], take: limit, skip: offset, select: SUMMARY }),
      this.db.dataset.count({ where }),
    ]);
    return { rows, total };
  }

  async get(id: string, withData = false): Promise<DatasetRow | null> {
    return this.db.dataset.findUnique({ where: { id }, select: { ...SUMMARY, data: withData } });
  }

  /** One example of a dataset, read without loading the others. */
  async example(id: string, index: number): Promise<unknown> {
    const rows = await this.db.$queryRawUnsafe<Array<{ example: unknown }>>(`SELECT data -> $2::int AS example FROM datasets WHERE id = $1::uuid`, id, index);
    return rows[0]?.example ?? undefined;
  }
}
