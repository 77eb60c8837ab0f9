import type { AccessTokenClaims, mcpRegistry } from '@platform/contracts';
import { hasPermission } from '@platform/jwt';
import { assertPublicHost, badRequest, conflict, forbidden, isUniqueViolation, notFound, OutboundError, OwnershipRule, type ReadScope } from '@platform/http';
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

/**
 * The platform's one ownership rule over connections (DESIGN.md, "Who owns what"): the owner, a
 * member of its team or `mcp:admin` reads one; the owner, a team editor or `mcp:admin` changes,
 * checks, calls or disconnects it. Its 404 is the registry's own, so that a connection the caller
 * may not read answers exactly as a missing one.
 */
export const connectionRule = new OwnershipRule({ admin: ADMIN_PERMISSION, notFound: (id) => notFound(`No connection ${id}`, { connectionId: id }) });

type Caller = AccessTokenClaims | undefined;

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
  guardStdio(protocol: string, command: string | undefined, caller: Caller): void {
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
   * An import replacing a registered connection needs the right to change it. The caller named the
   * connection, and its name is taken (a registration would answer 409), so a refusal is a 403
   * naming the name, whether or not the caller may read it: no id of another's connection leaks.
   */
  guardReplace(row: ConnectionRow, caller: Caller): void {
    if (connectionRule.canWrite(caller, row)) return;
    throw forbidden(
      row.owner === null
        ? `The connection "${row.name}" has no owner: only ${ADMIN_PERMISSION} may replace it`
        : `Only the owner of "${row.name}", an editor of its team or ${ADMIN_PERMISSION} may replace it`,
      { name: row.name, required: ADMIN_PERMISSION, reason: 'not_owner' },
    );
  }

  /** The connection when the caller may change, check or call it: 404 if they may not read it, 403 if only read. */
  async writable(id: string, caller: Caller): Promise<ConnectionRow> {
    return connectionRule.writable(caller, await this.deps.repository.find(id), id);
  }

  /** Which connections lists, discovery, statistics and the stream show this caller. */
  readScope(caller: Caller): ReadScope {
    return connectionRule.readScope(caller);
  }

  /**
   * Splits ids into those the caller may check and answers for the others: one they may not read
   * answers as a missing one does, one they may only read says so.
   */
  async partitionWritable(ids: string[], caller: Caller): Promise<{ allowed: string[]; refused: Map<string, string> }> {
    const rows = new Map((await this.deps.repository.findMany(ids)).map((row) => [row.id, row]));
    const allowed: string[] = [];
    const refused = new Map<string, string>();
    for (const id of ids) {
      const row = rows.get(id);
      if (!row || !connectionRule.canRead(caller, row)) refused.set(id, 'no such connection');
      else if (!connectionRule.canWrite(caller, row)) refused.set(id, `only its owner, an editor of its team or ${ADMIN_PERMISSION} may check it`);
      else allowed.push(id);
    }
    return { allowed, refused };
  }

  async register(body: Register, caller: Caller): Promise<ConnectionRow> {
    this.guardStdio(body.protocol, body.endpoint.command, caller);
    this.guardUrl(body.endpoint);
    // Every route that registers is authenticated; the team is one the caller may share with (403).
    const { owner, team } = connectionRule.ownerFor(caller!, body.team);
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
        createdBy: owner,
        owner,
        team,
      })
      // Registered meanwhile by a parallel request: the unique index decides.
      .catch((error: unknown) => rethrowNameTaken(error, body.name));
    await this.deps.scheduler.sync(row);
    await this.publishStatus(row.id, row.status);
    return row;
  }

  async detail(id: string, caller: Caller): Promise<mcpRegistry.ConnectionDetail> {
    const row = connectionRule.readable(caller, await this.deps.repository.findWithTools(id), id);
    const [rpm, p95, load] = await Promise.all([
      this.deps.repository.requestsPerMinute([id]),
      this.deps.repository.p95Latency(id),
      this.deps.liveLoad.snapshot(),
    ]);
    return toDetail(row, row.tools, { requestsPerMinute: rpm.get(id) ?? 0, p95Latency: p95, activeRequests: load.get(id) ?? 0 });
  }

  /** Only the connections the caller may read; `total` and `filtered` count only those too. */
  async list(query: ListQuery, caller: Caller) {
    const filter = {
      ...(query.status && { status: query.status }),
      ...(query.type && { type: query.type }),
      ...(query.protocol && { protocol: query.protocol }),
      ...(query.capability && { capability: query.capability }),
    };
    const { rows, total, filtered } = await this.deps.repository.list(filter, this.readScope(caller), query.limit, query.offset);
    const [rpm, load] = await Promise.all([this.deps.repository.requestsPerMinute(rows.map((row) => row.id)), this.deps.liveLoad.snapshot()]);
    return {
      connections: rows.map((row) => toListItem(row, { requestsPerMinute: rpm.get(row.id) ?? 0, activeRequests: load.get(row.id) ?? 0 })),
      total,
      filtered,
      limit: query.limit,
      offset: query.offset,
    };
  }

  async update(id: string, body: Update, caller: Caller): Promise<ConnectionRow> {
    const current = await this.writable(id, caller);
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

  async disconnect(id: string, caller: Caller): Promise<ConnectionRow> {
    const current = await this.writable(id, caller);
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

  /** Every connection within `scope` that is not disconnected, oldest first. */
  live(scope: ReadScope = { all: true }): Promise<ConnectionRow[]> {
    return this.deps.repository.live(scope);
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

  /** Over the calls to connections within `scope`. */
  callTotals(scope: ReadScope, since?: Date): Promise<{ requests: number; failed: number; averageLatency: number }> {
    return this.deps.repository.callTotals(scope, since);
  }

  /** Over the calls to connections within `scope`. */
  callsByTool(scope: ReadScope): Promise<Map<string, { requests: number; averageLatency: number }>> {
    return this.deps.repository.callsByTool(scope);
  }
}
