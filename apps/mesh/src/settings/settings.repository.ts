import type { Db } from '../database';

/** The mesh-wide settings row (one JSON document shared by every node). */
export class SettingsRepository {
  constructor(
    private readonly db: Db,
    /** One settings document per cluster (MESH_CLUSTER). */
    private readonly key: string,
  ) {}

  async load(): Promise<Record<string, unknown> | undefined> {
    const row = await this.db.setting.findUnique({ where: { key: this.key } });
    return (row?.value as Record<string, unknown> | undefined) ?? undefined;
  }

  async save(value: Record<string, unknown>): Promise<void> {
    await this.db.setting.upsert({
      where: { key: this.key },
      create: { key: this.key, value: value as object },
      update: { value: value as object, updatedAt: new Date() },
    });
  }
}
