import type { ReadScope } from '@platform/http';
import { connectionScopeWhere, scopeWhere } from '../connections/connections.repository';
import type { Db } from '../database';

/** The capability names and tool descriptions of connections that are not disconnected. */
export class CapabilityRepository {
  constructor(private readonly db: Db) {}

  liveCapabilityNames(scope: ReadScope): Promise<Array<{ id: string; capabilityNames: string[] }>> {
    return this.db.connection.findMany({ where: { ...scopeWhere(scope), status: { not: 'disconnected' } }, select: { id: true, capabilityNames: true } });
  }

  liveTools(scope: ReadScope): Promise<Array<{ name: string; description: string | null }>> {
    const visible = connectionScopeWhere(scope).connection ?? {};
    return this.db.tool.findMany({ where: { connection: { ...visible, status: { not: 'disconnected' } } }, select: { name: true, description: true } });
  }
}
