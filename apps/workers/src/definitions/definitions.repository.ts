import type { Db, Tx } from '../database';
import { isUniqueViolation } from '@platform/http';

export interface DefinitionRow {
  id: string;
  name: string;
  version: number;
  hash: string;
  steps: unknown;
  source: string;
  createdAt: Date;
}

/** Definitions by name and version, and the pins that choose the version new runs use. */
export class DefinitionsRepository {
  constructor(private readonly db: Db) {}

  find(name: string, version: number): Promise<DefinitionRow | null> {
    return this.db.definition.findUnique({ where: { name_version: { name, version } } });
  }

  latest(name: string): Promise<DefinitionRow | null> {
    return this.db.definition.findFirst({ where: { name }, orderBy: { version: 'desc' } });
  }

  /**
   * The version holding exactly these steps (same hash), created as the next version when new.
   * Two callers registering the same new steps at once get the same version.
   */
  async register(name: string, hash: string, steps: unknown, source: string, tx: Tx | Db = this.db): Promise<{ row: DefinitionRow; created: boolean }> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const existing = await tx.definition.findUnique({ where: { name_hash: { name, hash } } });
      if (existing) return { row: existing, created: false };
      const top = await tx.definition.aggregate({ where: { name }, _max: { version: true } });
      try {
        const row = await tx.definition.create({ data: { name, hash, steps: steps as object, source, version: (top._max.version ?? 0) + 1 } });
        return { row, created: true };
      } catch (error) {
        if (!isUniqueViolation(error) || tx !== this.db) throw error;
      }
    }
    throw new Error(`could not register a version of ${name}`);
  }

  /** Registers several definitions in one transaction: all of them or none. */
  registerAll(items: Array<{ name: string; hash: string; steps: unknown; source: string }>) {
    return this.db.$transaction(async (tx) => {
      const results = [];
      for (const item of items) results.push(await this.register(item.name, item.hash, item.steps, item.source, tx));
      return results;
    });
  }

  pin(name: string, version: number, by: string | undefined) {
    return this.db.pin.upsert({ where: { name }, create: { name, version, pinnedBy: by }, update: { version, pinnedBy: by, pinnedAt: new Date() } });
  }

  pinOf(name: string) {
    return this.db.pin.findUnique({ where: { name } });
  }

  async versions(name: string | undefined, limit: number, offset: number) {
    const where = name ? { name } : {};
    const [rows, total, pins] = await Promise.all([
      this.db.definition.findMany({ where, orderBy: [{ name: 'asc' }, { version: 'desc' }], take: limit, skip: offset }),
      this.db.definition.count({ where }),
      this.db.pin.findMany({ where }),
    ]);
    return { rows, total, pins: new Map(pins.map((pin) => [pin.name, pin.version])) };
  }
}
