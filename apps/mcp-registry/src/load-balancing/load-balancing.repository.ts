import type { Db } from '../database';

/** The connections whose load is distributed. */
export class LoadDistributionRepository {
  constructor(private readonly db: Db) {}

  /** Connections that are not disconnected, by name. */
  live() {
    return this.db.connection.findMany({
      where: { status: { not: 'disconnected' } },
      select: { id: true, name: true, capabilityNames: true, capacity: true, status: true, healthStatus: true },
      orderBy: { name: 'asc' },
    });
  }
}
