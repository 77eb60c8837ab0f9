import type { Db } from '../database';

/** Registry-wide counts over the connections. */
export class RegistryRepository {
  constructor(private readonly db: Db) {}

  countByStatus() {
    return this.db.connection.groupBy({ by: ['status'], _count: { _all: true } });
  }

  countLiveByProtocol() {
    return this.db.connection.groupBy({ by: ['protocol'], where: { status: { not: 'disconnected' } }, _count: { _all: true } });
  }

  countLiveByHealth() {
    return this.db.connection.groupBy({ by: ['healthStatus'], where: { status: { not: 'disconnected' } }, _count: { _all: true } });
  }

  /** Distinct capability names of the connections that are not disconnected. */
  async countLiveCapabilities(): Promise<number> {
    const rows = await this.db.$queryRawUnsafe<Array<{ total: bigint }>>(
      `SELECT count(DISTINCT capability)::bigint AS total FROM "mcp-registry"."Connection" c, unnest(c."capabilityNames") AS capability WHERE c.status <> 'disconnected'`,
    );
    return Number(rows[0]?.total ?? 0);
  }
}
