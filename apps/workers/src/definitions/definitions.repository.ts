import type { Db, Tx } from '../database';
import { readScopeWhere, type Owned, type ReadScope } from '@platform/http';

export interface DefinitionRow {
  id: string;
  name: string;
  version: number;
  hash: string;
  steps: unknown;
  source: string;
  owner: string | null;
  team: string | null;
  createdAt: Date;
}

/** Who registers a version: the owner and team a new name gets, and the caller. */
export interface Registrant {
  owner: string;
  team: string | null;
  by: string;
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
   * A name that exists keeps its owner and team: `authorize` sees them first and throws when the
   * caller may not add to it; a new name gets the registrant's. Registrations of one name take
   * turns (a transaction-scoped advisory lock on the name), so two callers creating the same new
   * name at once never fork it between owners: the second sees the first's version and goes
   * through `authorize`, and the same new steps registered twice are one version.
   */
  async register(
    name: string,
    hash: string,
    steps: unknown,
    source: string,
    registrant: Registrant,
    authorize: (name: Owned) => void,
    tx?: Tx,
  ): Promise<{ row: DefinitionRow; created: boolean }> {
    if (!tx) return this.db.$transaction((inner) => this.register(name, hash, steps, source, registrant, authorize, inner));
    await tx.$queryRaw`SELECT 1 AS locked FROM pg_advisory_xact_lock(hashtext(${`workers.definitions:${name}`}))`;
    const first = await tx.definition.findFirst({ where: { name }, orderBy: { version: 'asc' }, select: { owner: true, team: true } });
    if (first) authorize(first);
    const existing = await tx.definition.findUnique({ where: { name_hash: { name, hash } } });
    if (existing) return { row: existing, created: false };
    const top = await tx.definition.aggregate({ where: { name }, _max: { version: true } });
    const ownership = first ?? { owner: registrant.owner, team: registrant.team };
    const row = await tx.definition.create({
      data: { name, hash, steps: steps as object, source, version: (top._max.version ?? 0) + 1, ...ownership, registeredBy: registrant.by },
    });
    return { row, created: true };
  }

  /** Registers several definitions in one transaction: all of them or none (`authorize` throwing for one stops all). */
  registerAll(
    items: Array<{ name: string; hash: string; steps: unknown; source: string; registrant: Registrant }>,
    authorize: (name: string, owned: Owned) => void,
  ) {
    return this.db.$transaction(async (tx) => {
      const results = [];
      for (const item of items)
        results.push(await this.register(item.name, item.hash, item.steps, item.source, item.registrant, (owned) => authorize(item.name, owned), tx));
      return results;
    });
  }

  /** The owner and team of a name (every version carries them), or null for a name never registered. */
  ownerOf(name: string): Promise<Owned | null> {
    return this.db.definition.findFirst({ where: { name }, orderBy: { version: 'asc' }, select: { owner: true, team: true } });
  }

  pin(name: string, version: number, by: string | undefined) {
    return this.db.pin.upsert({ where: { name }, create: { name, version, pinnedBy: by }, update: { version, pinnedBy: by, pinnedAt: new Date() } });
  }

  pinOf(name: string) {
    return this.db.pin.findUnique({ where: { name } });
  }

  /** The versions of the names the caller may read (`scope`), by name, newest first. */
  async versions(name: string | undefined, scope: ReadScope, limit: number, offset: number) {
    const byName = name ? { name } : {};
    const where = { ...byName, ...readScopeWhere(scope) };
    const [rows, total, pins] = await Promise.all([
      this.db.definition.findMany({ where, orderBy: [{ name: 'asc' }, { version: 'desc' }], take: limit, skip: offset }),
      this.db.definition.count({ where }),
      this.db.pin.findMany({ where: byName }),
    ]);
    return { rows, total, pins: new Map(pins.map((pin) => [pin.name, pin.version])) };
  }
}
