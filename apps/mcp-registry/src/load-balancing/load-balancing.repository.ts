import type { ReadScope } from '@platform/http';
import { scopeWhere } from '../connections/connections.repository';
import type { Db } from '../database';

/** The connections whose load is distributed. */
export class LoadDistributionRepository {
  constructor(private readonly db: Db) {}

  /** Connections within `scope` that are not disconnected, by name. */
  live(scope: ReadScope) {
    return this.db.connection.findMany({
      where: { ...scopeWhere(scope), status: { not: 'disconnected' } },
      select: { id: true, name: true, capabilityNames: true, capacity: true, status: true, healthStatus: true },
      orderBy: { name: 'asc' },
    });
  }
}
