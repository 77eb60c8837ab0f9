import type { ReadScope } from '@platform/http';
import { scopeWhere } from '../connections/connections.repository';
import type { Db } from '../database';

/** Registry-wide counts over the connections. */
export class RegistryRepository {
  constructor(private readonly db: Db) {}

  countByStatus(scope: ReadScope) {
    return this.db.connection.groupBy({ by: ['status'], where: scopeWhere(scope), _count: { _all: true } });
  }

  countLiveByProtocol(scope: ReadScope) {
    return this.db.connection.groupBy({ by: ['protocol'], where: { ...scopeWhere(scope), status: { not: 'disconnected' } }, _count: { _all: true } });
  }

  countLiveByHealth() {
    return this.db.connection.groupBy({ by: ['healthStatus'], where: { status: { not: 'disconnected' } }, _count: { _all: true } });
  }

  /** Distinct capability names of the connections within `scope` that are not disconnected. */
  async countLiveCapabilities(scope: ReadScope): Promise<number> {
    const visible = scope.all ? '' : ` AND (c.owner = $1 OR c.team = ANY($2::text[]))`;
    const rows = await this.db.$queryRawUnsafe<Array<{ total: bigint }>>(
      `SELECT count(DISTINCT capability)::bigint AS total FROM "mcp-registry"."Connection" c, unnest(c."capabilityNames") AS capability WHERE c.status <> 'disconnected'${visible}`,
      ...(scope.all ? [] : [scope.owner, scope.teams]),
    );
    return Number(rows[0]?.total ?? 0);
  }
}
