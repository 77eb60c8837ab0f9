import { mcpRegistry, type AccessTokenClaims } from '@platform/contracts';
import { ApiError, forbidden, type ReadScope } from '@platform/http';
import { hasPermission } from '@platform/jwt';
import type { z } from 'zod';
import { ADMIN_PERMISSION, publicEndpoint, restoreRedacted, type ConnectionService, type Json } from '../connections/connections.service';
import { round } from '../numbers';
import type { RegistryRepository } from './registry.repository';

export const REGISTRY_VERSION = '0.2.0';
type Exported = z.output<typeof mcpRegistry.ExportedConnection>;
type ImportRequest = z.output<typeof mcpRegistry.RegistryImportRequest>;

const STATUSES = ['active', 'idle', 'disconnected', 'error'] as const;
const PROTOCOLS = ['stdio', 'http', 'websocket'] as const;

/** Registry-wide numbers, export, and an import that takes an export back. */
export class RegistryService {
  constructor(private readonly deps: { repository: RegistryRepository; connections: ConnectionService }) {}

  /** Over the connections the caller may read (`scope`) and the tool calls made to them. */
  async stats(scope: ReadScope): Promise<z.output<typeof mcpRegistry.RegistryStatsResponse>> {
    const [byStatus, byProtocol, capabilityCount, byTool, lastMinute, allTime] = await Promise.all([
      this.deps.repository.countByStatus(scope),
      this.deps.repository.countLiveByProtocol(scope),
      this.deps.repository.countLiveCapabilities(scope),
      this.deps.connections.callsByTool(scope),
      this.deps.connections.callTotals(scope, new Date(Date.now() - 60_000)),
      this.deps.connections.callTotals(scope),
    ]);
    const statusCount = Object.fromEntries(STATUSES.map((status) => [status, byStatus.find((row) => row.status === status)?._count._all ?? 0])) as Record<
      (typeof STATUSES)[number],
      number
    >;
    const protocols = Object.fromEntries(
      PROTOCOLS.map((protocol) => [protocol, byProtocol.find((row) => row.protocol === protocol)?._count._all ?? 0]),
    ) as Record<(typeof PROTOCOLS)[number], number>;
    const mostUsed = [...byTool.entries()]
      .map(([name, value]) => ({ name, requests: value.requests }))
      .sort((a, b) => b.requests - a.requests || a.name.localeCompare(b.name))
      .slice(0, 10);
    return {
      timestamp: new Date().toISOString(),
      connections: { total: Object.values(statusCount).reduce((sum, value) => sum + value, 0), ...statusCount },
      protocols,
      capabilities: { total: capabilityCount, mostUsed },
      performance: {
        averageLatency: allTime.averageLatency,
        requestsPerSecond: round(lastMinute.requests / 60, 3),
        errorRate: allTime.requests === 0 ? 0 : round(allTime.failed / allTime.requests, 4),
      },
    };
  }

  /** `/health`'s registry and performance blocks: counts over the whole registry, naming no connection. */
  async healthExtra(): Promise<z.output<typeof mcpRegistry.RegistryHealthExtra>> {
    const [byHealth, lastMinute, allTime] = await Promise.all([
      this.deps.repository.countLiveByHealth(),
      this.deps.connections.callTotals({ all: true }, new Date(Date.now() - 60_000)),
      this.deps.connections.callTotals({ all: true }),
    ]);
    const count = (statuses: string[]) => byHealth.filter((row) => statuses.includes(row.healthStatus)).reduce((sum, row) => sum + row._count._all, 0);
    return {
      registry: { connections: count(['healthy', 'degraded', 'initializing', 'error']), healthy: count(['healthy', 'degraded']), unhealthy: count(['error']) },
      performance: { requestsPerSecond: round(lastMinute.requests / 60, 3), averageLatency: allTime.averageLatency },
    };
  }

  /**
   * Every connection the caller may read that is not disconnected, in a form `import` takes back.
   * Header values are redacted as in the list and detail views; only an admin exports them as stored.
   */
  async export(includeSecrets: boolean, caller: AccessTokenClaims | undefined): Promise<z.output<typeof mcpRegistry.RegistryExport>> {
    if (includeSecrets && !hasPermission(caller?.permissions ?? [], ADMIN_PERMISSION))
      throw forbidden('An export with header values (credentials) needs the admin permission', {
        required: ADMIN_PERMISSION,
        userPermissions: caller?.permissions ?? [],
      });
    const rows = await this.deps.connections.live(this.deps.connections.readScope(caller));
    const connections: Exported[] = rows.map((row) => ({
      name: row.name,
      type: row.type as Exported['type'],
      protocol: row.protocol as Exported['protocol'],
      endpoint: includeSecrets ? (row.endpoint as Exported['endpoint']) : publicEndpoint(row.endpoint),
      capabilities: row.declaredCapabilities,
      metadata: row.metadata as Exported['metadata'],
      healthCheck: { enabled: row.healthCheckEnabled, interval: row.healthCheckInterval, timeout: row.healthCheckTimeout },
      capacity: row.capacity,
    }));
    return { version: REGISTRY_VERSION, exportedAt: new Date().toISOString(), secretsIncluded: includeSecrets, connections, totalExported: connections.length };
  }

  /**
   * Registers each exported connection; a name already registered is skipped or, with
   * `onConflict: replace`, updated (only by its owner, an editor of its team or an admin: 403
   * before anything is stored).
   * Each entry passes the same guard as a registration; a refused entry is reported in `errors`
   * and does not stop the others.
   */
  async import(request: ImportRequest, caller: AccessTokenClaims | undefined): Promise<z.output<typeof mcpRegistry.RegistryImportResponse>> {
    const outcome: z.output<typeof mcpRegistry.RegistryImportResponse> = { imported: [], updated: [], skipped: [], errors: [] };
    if (request.onConflict === 'replace') {
      // Replacing another's connection (pointing it at one's own server) is refused as a whole.
      for (const entry of request.connections) {
        const existing = await this.deps.connections.findByName(entry.name);
        if (existing) this.deps.connections.guardReplace(existing, caller);
      }
    }
    for (const entry of request.connections) {
      const valid = mcpRegistry.RegisterConnectionRequest.safeParse(entry);
      if (!valid.success) {
        outcome.errors.push({ name: entry.name, error: valid.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ') });
        continue;
      }
      try {
        const existing = await this.deps.connections.findByName(entry.name);
        if (existing && request.onConflict === 'skip') {
          outcome.skipped.push({ name: entry.name, reason: 'a connection of this name is registered' });
          continue;
        }
        if (existing) {
          this.deps.connections.guardReplace(existing, caller);
          this.deps.connections.guardStdio(entry.protocol, entry.endpoint.command, caller);
          this.deps.connections.guardStdio(existing.protocol, undefined, caller);
          this.deps.connections.guardUrl(entry.endpoint);
          await this.deps.connections.store(existing.id, {
            type: entry.type,
            protocol: entry.protocol,
            endpoint: restoreRedacted(entry.endpoint, existing.endpoint) as Json,
            declaredCapabilities: entry.capabilities,
            capabilityNames: [...new Set([...entry.capabilities, ...(await this.deps.connections.toolNames(existing.id))])],
            ...(entry.metadata && { metadata: entry.metadata as Json }),
            ...(entry.capacity && { capacity: entry.capacity }),
          });
          outcome.updated.push({ id: existing.id, name: entry.name });
          continue;
        }
        const row = await this.deps.connections.register(
          {
            ...entry,
            metadata: entry.metadata ?? {},
            healthCheck: entry.healthCheck ?? { enabled: true, interval: 30, timeout: 5000 },
          },
          caller,
        );
        outcome.imported.push({ id: row.id, name: row.name });
      } catch (error) {
        outcome.errors.push({ name: entry.name, error: error instanceof ApiError || error instanceof Error ? error.message : String(error) });
      }
    }
    return outcome;
  }
}
