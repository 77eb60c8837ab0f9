import type { AccessTokenClaims, mcpRegistry } from '@platform/contracts';
import { hasPermission } from '@platform/jwt';
import { assertPublicHost, badRequest, conflict, forbidden, isUniqueViolation, notFound, OutboundError } from '@platform/http';
import type { EventBus } from '../events/event-bus';
import type { CheckScheduler } from '../operations/check-scheduler';
import type { LiveLoad } from '../supervisor/live-load';
import { assertCommandAllowed, type StdioPolicy } from '../supervisor/stdio-launch';
import type { Supervisor } from '../supervisor/supervisor';
import type { ConnectionChanges, ConnectionRepository, ConnectionRow, Json, ToolRow } from './connections.repository';

export type { ConnectionChanges, ConnectionRow, Json, ToolRow };
/** What other resources show of a connection. */
export { publicEndpoint, restoreRedacted, uptimeSeconds } from './connections.view';
import { toDetail, toListItem } from './connections.view';

export const ADMIN_PERMISSION = 'mcp:admin';

const nameTaken = (name: string) => conflict(`A connection named "${name}" is already registered`, { name });

function rethrowNameTaken(error: unknown, name: string): never {
  throw isUniqueViolation(error) ? nameTaken(name) : error;
}

type Register = mcpRegistry.RegisterConnectionRequest;
type Update = mcpRegistry.UpdateConnectionRequest;
type ListQuery = mcpRegistry.ListConnectionsQueryType;

export interface ConnectionServiceDeps {
  repository: ConnectionRepository;
  scheduler: CheckScheduler;
  supervisor: Supervisor;
  events: EventBus;
  liveLoad: LiveLoad;
  stdioPolicy: StdioPolicy;
  defaultCapacity: number;
  /** Private, loopback and link-local addresses may be reached (`OUTBOUND_ALLOW_PRIVATE`). */
  allowPrivate: boolean;
}

/** Registration, changes and removal of connections, with the stdio guard. */
export class ConnectionService {
  constructor(private readonly deps: ConnectionServiceDeps) {}

  /**
   * A URL whose host is a literal private, loopback or link-local address can never be reached
   * while the operator does not allow them: refused at once (400 naming the field). A name is
   * checked by the outbound guard whenever a session connects, as it may resolve differently.
   */
  guardUrl(endpoint: { url?: string }): void {
    if (!endpoint.url || !URL.canParse(endpoint.url)) return;
    try {
      assertPublicHost(new URL(endpoint.url), this.deps.allowPrivate);
    } catch (error) {
      if (!(error instanceof OutboundError)) throw error;
      throw badRequest(`endpoint.url: ${error.message}, which the outbound guard refuses`, { field: 'endpoint.url', reason: error.reason }, 'invalid_url');
    }
  }

  /**
   * stdio means running a program on this host: only admins may, and only allowed commands.
   * Throws 403 / 400 before anything is stored.
   */
  guardStdio(protocol: string, command: string | undefined, caller: AccessTokenClaims | undefined): void {
    if (protocol !== 'stdio') return;
    const permissions = caller?.permissions ?? [];
    if (!hasPermission(permissions, ADMIN_PERMISSION)) {
      throw forbidden('Registering or changing a stdio connection starts a program on the registry host and needs the admin permission', {
        required: ADMIN_PERMISSION,
        userPermissions: permissions,
      });
    }
    if (command) assertCommandAllowed(command, this.deps.stdioPolicy);
  }

  /**
   * Only a connection's owner (the subject that registered it) or an admin changes it; a
   * connection registered before owners existed has none, so only an admin does. 403 otherwise.
   */
  guardOwner(row: Pick<ConnectionRow, 'id' | 'owner'>, caller: AccessTokenClaims | undefined): void {
    const permissions = caller?.permissions ?? [];
    if (hasPermission(permissions, ADMIN_PERMISSION)) return;
    if (row.owner !== null && caller?.sub === row.owner) return;
    throw forbidden(
      row.owner === null ? 'This connection has no owner: only an admin may change it' : "Only the connection's owner or an admin may change it",
      { connectionId: row.id, required: ADMIN_PERMISSION },
    );
  }

  async register(body: Register, caller: AccessTokenClaims | undefined): Promise<ConnectionRow> {
    this.guardStdio(body.protocol, body.endpoint.command, caller);
    this.guardUrl(body.endpoint);
    if (await this.deps.repository.findByName(body.name)) throw nameTaken(body.name);
    const row = await this.deps.repository
      .create({
        name: body.name,
        type: body.type,
        protocol: body.protocol,
        endpoint: body.endpoint as Json,
        declaredCapabilities: body.capabilities,
        capabilityNames: [...new Set(body.capabilities)],
        metadata: body.metadata as Json,
        capacity: body.capacity ?? this.deps.defaultCapacity,
        healthCheckEnabled: body.healthCheck.enabled,
        healthCheckInterval: body.healthCheck.interval,
        healthCheckTimeout: body.healthCheck.timeout,
        createdBy: caller?.sub ?? null,
        owner: caller?.sub ?? null,
      })
      // Registered meanwhile by a parallel request: the unique index decides.
      .catch((error: unknown) => rethrowNameTaken(error, body.name));
    await this.deps.scheduler.sync(row);
    await this.publishStatus(row.id, row.status);
    return row;
  }

  async get(id: string): Promise<ConnectionRow> {
    const row = await this.deps.repository.find(id);
    if (!row) throw notFound(`No connection ${id}`, { connectionId: id });
    return row;
  }

  async detail(id: string): Promise<mcpRegistry.ConnectionDetail> {
    const row = await this.deps.repository.findWithTools(id);
    if (!row) throw notFound(`No connection ${id}`, { connectionId: id });
    const [rpm, p95, load] = await Promise.all([
      this.deps.repository.requestsPerMinute([id]),
      this.deps.repository.p95Latency(id),
      this.deps.liveLoad.snapshot(),
    ]);
    return toDetail(row, row.tools, { requestsPerMinute: rpm.get(id) ?? 0, p95Latency: p95, activeRequests: load.get(id) ?? 0 });
  }

  async list(query: ListQuery) {
    const filter = {
      ...(query.status && { status: query.status }),
      ...(query.type && { type: query.type }),
      ...(query.protocol && { protocol: query.protocol }),
      ...(query.capability && { capability: query.capability }),
    };
    const { rows, total, filtered } = await this.deps.repository.list(filter, query.limit, query.offset);
    const [rpm, load] = await Promise.all([this.deps.repository.requestsPerMinute(rows.map((row) => row.id)), this.deps.liveLoad.snapshot()]);
    return {
      connections: rows.map((row) => toListItem(row, { requestsPerMinute: rpm.get(row.id) ?? 0, activeRequests: load.get(row.id) ?? 0 })),
      total,
      filtered,
      limit: query.limit,
      offset: query.offset,
    };
  }

  async update(id: string, body: Update, caller: AccessTokenClaims | undefined): Promise<ConnectionRow> {
    const current = await this.get(id);
    this.guardOwner(current, caller);
    this.guardStdio(current.protocol, undefined, caller);
    const data: ConnectionChanges = {};
    if (body.metadata) data.metadata = { ...(current.metadata as object), ...body.metadata } as Json;
    if (body.capacity) data.capacity = body.capacity;
    if (body.healthCheck?.enabled !== undefined) data.healthCheckEnabled = body.healthCheck.enabled;
    if (body.healthCheck?.interval !== undefined) data.healthCheckInterval = body.healthCheck.interval;
    if (body.healthCheck?.timeout !== undefined) data.healthCheckTimeout = body.healthCheck.timeout;
    if (body.status && body.status !== current.status) {
      data.status = body.status;
      data.disconnectedAt = body.status === 'disconnected' ? new Date() : null;
      if (body.status === 'disconnected') data.upSince = null;
      if (current.status === 'disconnected') data.healthStatus = 'initializing';
    }
    // Reactivating a connection whose name another one took meanwhile is a conflict.
    const row = await this.deps.repository.update(id, data).catch((error: unknown) => rethrowNameTaken(error, current.name));
    await this.deps.scheduler.sync(row);
    if (row.status !== current.status) {
      if (row.status === 'disconnected') await this.deps.supervisor.stop(id);
      await this.publishStatus(id, row.status, current.status);
    }
    return row;
  }

  async disconnect(id: string, caller: AccessTokenClaims | undefined): Promise<ConnectionRow> {
    const current = await this.get(id);
    this.guardOwner(current, caller);
    this.guardStdio(current.protocol, undefined, caller);
    const row =
      current.status === 'disconnected'
        ? current
        : await this.deps.repository.update(id, { status: 'disconnected', disconnectedAt: new Date(), upSince: null });
    await this.deps.scheduler.unschedule(id);
    await this.deps.supervisor.stop(id);
    if (current.status !== 'disconnected') await this.publishStatus(id, 'disconnected', current.status);
    return row;
  }

  publishStatus(connectionId: string, status: string, previousStatus?: string): Promise<void> {
    return this.deps.events.publish({
      type: 'connection-status',
      connectionId,
      status,
      ...(previousStatus && { previousStatus }),
      timestamp: new Date().toISOString(),
    });
  }

  // The connection rows and their history, for the other resources (they reach connections through this service).

  find(id: string): Promise<ConnectionRow | null> {
    return this.deps.repository.find(id);
  }

  findMany(ids: string[]): Promise<ConnectionRow[]> {
    return this.deps.repository.findMany(ids);
  }

  findByName(name: string): Promise<ConnectionRow | null> {
    return this.deps.repository.findByName(name);
  }

  /** Every connection that is not disconnected, oldest first. */
  live(): Promise<ConnectionRow[]> {
    return this.deps.repository.live();
  }

  /** Connections whose scheduled health checks should run. */
  scheduled(): Promise<ConnectionRow[]> {
    return this.deps.repository.scheduled();
  }

  /** Stores changes as they are (an import replacing a connection); no guard, no events. */
  store(id: string, changes: ConnectionChanges): Promise<ConnectionRow> {
    return this.deps.repository.update(id, changes);
  }

  replaceTools(id: string, declared: string[], tools: Array<{ name: string; description?: string; inputSchema: object }>): Promise<void> {
    return this.deps.repository.replaceTools(id, declared, tools);
  }

  toolNames(id: string): Promise<string[]> {
    return this.deps.repository.toolNames(id);
  }

  recordCall(id: string, tool: string, success: boolean, latencyMs: number, error?: string): Promise<void> {
    return this.deps.repository.recordCall(id, tool, success, latencyMs, error);
  }

  requestsPerMinute(ids: string[]): Promise<Map<string, number>> {
    return this.deps.repository.requestsPerMinute(ids);
  }

  callTotals(since?: Date): Promise<{ requests: number; failed: number; averageLatency: number }> {
    return this.deps.repository.callTotals(since);
  }

  callsByTool(): Promise<Map<string, { requests: number; averageLatency: number }>> {
    return this.deps.repository.callsByTool();
  }
}
