import { readScopeWhere, type ReadScope } from '@platform/http';
import type { Db } from '../database';
import type { Connection, Prisma, Tool } from '../generated/prisma/client';
import { round } from '../numbers';

export type ConnectionRow = Connection;
export type ToolRow = Tool;
export type NewConnection = Prisma.ConnectionCreateInput;
export type ConnectionChanges = Prisma.ConnectionUpdateInput;
export type ConnectionFilter = Pick<Prisma.ConnectionWhereInput, 'status' | 'type' | 'protocol'> & { capability?: string };
/** A JSON value as stored (endpoint, metadata). */
export type Json = Prisma.InputJsonValue;

const TOOL_CALL = '"mcp-registry"."ToolCall"';

/** The connections a read scope reaches, as a `where` over connections. */
export function scopeWhere(scope: ReadScope): Prisma.ConnectionWhereInput {
  return readScopeWhere(scope) as Prisma.ConnectionWhereInput;
}

/** The same over rows that belong to a connection (tools, tool calls); nothing added for an admin. */
export function connectionScopeWhere(scope: ReadScope): { connection?: Prisma.ConnectionWhereInput } {
  return scope.all ? {} : { connection: scopeWhere(scope) };
}

/** Connections, their tools and their tool-call history in Postgres. */
export class ConnectionRepository {
  constructor(private readonly prisma: Db) {}

  create(data: Prisma.ConnectionCreateInput): Promise<ConnectionRow> {
    return this.prisma.connection.create({ data });
  }

  find(id: string): Promise<ConnectionRow | null> {
    return this.prisma.connection.findUnique({ where: { id } });
  }

  findWithTools(id: string): Promise<(ConnectionRow & { tools: ToolRow[] }) | null> {
    return this.prisma.connection.findUnique({ where: { id }, include: { tools: { orderBy: { name: 'asc' } } } });
  }

  findByName(name: string): Promise<ConnectionRow | null> {
    return this.prisma.connection.findFirst({ where: { name, status: { not: 'disconnected' } }, orderBy: { createdAt: 'desc' } });
  }

  findMany(ids: string[]): Promise<ConnectionRow[]> {
    return this.prisma.connection.findMany({ where: { id: { in: ids } } });
  }

  async list(filter: ConnectionFilter, scope: ReadScope, limit: number, offset: number): Promise<{ rows: ConnectionRow[]; total: number; filtered: number }> {
    const { capability, ...fields } = filter;
    const visible = scopeWhere(scope);
    const where: Prisma.ConnectionWhereInput = { ...visible, ...fields, ...(capability && { capabilityNames: { has: capability } }) };
    const [rows, total, filtered] = await Promise.all([
      this.prisma.connection.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'asc' }], take: limit, skip: offset }),
      this.prisma.connection.count({ where: visible }),
      this.prisma.connection.count({ where }),
    ]);
    return { rows, total, filtered };
  }

  /** Every connection that is not disconnected, oldest first. */
  live(scope: ReadScope): Promise<ConnectionRow[]> {
    return this.prisma.connection.findMany({ where: { ...scopeWhere(scope), status: { not: 'disconnected' } }, orderBy: { createdAt: 'asc' } });
  }

  /** Connections whose scheduled health checks should run. */
  scheduled(): Promise<ConnectionRow[]> {
    return this.prisma.connection.findMany({ where: { status: { not: 'disconnected' }, healthCheckEnabled: true }, orderBy: { createdAt: 'asc' } });
  }

  update(id: string, data: Prisma.ConnectionUpdateInput): Promise<ConnectionRow> {
    return this.prisma.connection.update({ where: { id }, data });
  }

  /** Replaces the reported tools and the capability names discovery matches on. */
  async replaceTools(id: string, declared: string[], tools: Array<{ name: string; description?: string; inputSchema: object }>): Promise<void> {
    const names = [...new Set([...declared, ...tools.map((tool) => tool.name)])];
    await this.prisma.$transaction([
      this.prisma.tool.deleteMany({ where: { connectionId: id } }),
      this.prisma.tool.createMany({
        data: tools.map((tool) => ({
          connectionId: id,
          name: tool.name,
          description: tool.description ?? null,
          inputSchema: tool.inputSchema as Prisma.InputJsonValue,
        })),
        skipDuplicates: true,
      }),
      this.prisma.connection.update({ where: { id }, data: { capabilityNames: names } }),
    ]);
  }

  toolNames(id: string): Promise<string[]> {
    return this.prisma.tool.findMany({ where: { connectionId: id }, select: { name: true } }).then((rows) => rows.map((row) => row.name));
  }

  /** Records one tool call and moves the connection's counters in the same transaction. */
  async recordCall(id: string, tool: string, success: boolean, latencyMs: number, error?: string): Promise<void> {
    await this.prisma.$transaction([
      this.prisma.toolCall.create({ data: { connectionId: id, tool, success, latencyMs, error: error?.slice(0, 1000) ?? null } }),
      this.prisma.connection.update({
        where: { id },
        data: {
          totalRequests: { increment: 1 },
          failedRequests: { increment: success ? 0 : 1 },
          totalLatencyMs: { increment: latencyMs },
          lastActiveAt: new Date(),
        },
      }),
    ]);
  }

  /** Tool calls in the last minute per connection. */
  async requestsPerMinute(ids: string[]): Promise<Map<string, number>> {
    if (ids.length === 0) return new Map();
    const rows = await this.prisma.toolCall.groupBy({
      by: ['connectionId'],
      where: { connectionId: { in: ids }, createdAt: { gte: new Date(Date.now() - 60_000) } },
      _count: { _all: true },
    });
    return new Map(rows.map((row) => [row.connectionId, row._count._all]));
  }

  /** 95th percentile latency over the connection's latest 1000 calls. */
  async p95Latency(id: string): Promise<number> {
    const rows = await this.prisma.$queryRawUnsafe<Array<{ p95: number | null }>>(
      `SELECT percentile_cont(0.95) WITHIN GROUP (ORDER BY "latencyMs") AS p95
         FROM (SELECT "latencyMs" FROM ${TOOL_CALL} WHERE "connectionId" = $1::uuid ORDER BY "createdAt" DESC LIMIT 1000) recent`,
      id,
    );
    return Number(rows[0]?.p95 ?? 0);
  }

  /** Requests, failures and mean latency of the tool calls since `since`. */
  async callTotals(scope: ReadScope, since?: Date): Promise<{ requests: number; failed: number; averageLatency: number }> {
    const where = { ...connectionScopeWhere(scope), ...(since && { createdAt: { gte: since } }) };
    const [all, failed] = await Promise.all([
      this.prisma.toolCall.aggregate({ where, _count: { _all: true }, _avg: { latencyMs: true } }),
      this.prisma.toolCall.count({ where: { ...where, success: false } }),
    ]);
    return { requests: all._count._all, failed, averageLatency: round(all._avg.latencyMs ?? 0) };
  }

  /** Requests and mean latency per tool name. */
  async callsByTool(scope: ReadScope): Promise<Map<string, { requests: number; averageLatency: number }>> {
    const rows = await this.prisma.toolCall.groupBy({ by: ['tool'], where: connectionScopeWhere(scope), _count: { _all: true }, _avg: { latencyMs: true } });
    return new Map(rows.map((row) => [row.tool, { requests: row._count._all, averageLatency: round(row._avg.latencyMs ?? 0) }]));
  }
}
