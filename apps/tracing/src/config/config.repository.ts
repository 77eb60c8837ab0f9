import type { Db } from '../database';

export interface RetentionSettings {
  retentionDays: number;
  maxSpansPerProject: number | null;
  projectSpanCaps: Record<string, number>;
  updatedAt: Date;
}

export class ConfigRepository {
  constructor(private readonly db: Db) {}

  async get(): Promise<RetentionSettings> {
    const row = await this.db.retentionConfig.upsert({ where: { id: 1 }, create: { id: 1 }, update: {} });
    return {
      retentionDays: row.retentionDays,
      maxSpansPerProject: row.maxSpansPerProject,
      projectSpanCaps: (row.projectSpanCaps ?? {}) as Record<string, number>,
      updatedAt: row.updatedAt,
    };
  }

  async update(change: Partial<Omit<RetentionSettings, 'updatedAt'>>): Promise<RetentionSettings> {
    await this.db.retentionConfig.upsert({
      where: { id: 1 },
      create: { id: 1, ...change },
      update: {
        ...(change.retentionDays !== undefined && { retentionDays: change.retentionDays }),
        ...(change.maxSpansPerProject !== undefined && { maxSpansPerProject: change.maxSpansPerProject }),
        ...(change.projectSpanCaps !== undefined && { projectSpanCaps: change.projectSpanCaps }),
      },
    });
    return this.get();
  }
}
