import type { Db } from '../database';

/** The capability names and tool descriptions of connections that are not disconnected. */
export class CapabilityRepository {
  constructor(private readonly db: Db) {}

  liveCapabilityNames(): Promise<Array<{ id: string; capabilityNames: string[] }>> {
    return this.db.connection.findMany({ where: { status: { not: 'disconnected' } }, select: { id: true, capabilityNames: true } });
  }

  liveTools(): Promise<Array<{ name: string; description: string | null }>> {
    return this.db.tool.findMany({ where: { connection: { status: { not: 'disconnected' } } }, select: { name: true, description: true } });
  }
}
