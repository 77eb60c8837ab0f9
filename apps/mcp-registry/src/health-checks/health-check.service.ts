import type { mcpRegistry } from '@platform/contracts';
import { ListToolsResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { createHash } from 'node:crypto';
import { conflict, notFound, type Logger } from '@platform/service-kit';
import type { ConnectionRepository, ConnectionRow } from '../connections/connection.repository';
import { round } from '../connections/connection.repository';
import type { EventBus } from '../events/event-bus';
import type { LiveLoad } from '../load-balancing/live-load';
import { formatBytes } from '../supervisor/process-info';
import type { McpSession, SessionTarget } from '../supervisor/mcp-session';
import type { Supervisor } from '../supervisor/supervisor';
import { appendRecent, healthAfter, statusAfter } from './health-rules';

export class CheckTimeoutError extends Error {
  override name = 'CheckTimeoutError';
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CheckTimeoutError(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

export function sessionTarget(row: ConnectionRow): SessionTarget {
  return { id: row.id, protocol: row.protocol as SessionTarget['protocol'], endpoint: row.endpoint as SessionTarget['endpoint'] };
}

interface ReportedTool {
  name: string;
  description?: string;
  inputSchema: object;
}

async function listAllTools(session: McpSession, timeout: number): Promise<ReportedTool[]> {
  const tools: ReportedTool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 20; page += 1) {
    // `request` rather than `listTools`: the latter compiles a JSON-schema validator for every
    // tool's output schema on each call, which made checks CPU-bound; checks only read the list.
    const result = await session.client.request({ method: 'tools/list', params: cursor ? { cursor } : {} }, ListToolsResultSchema, { timeout });
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  return tools;
}

/**
 * A health check speaks MCP: the session's initialize handshake (once per session), then `ping`
 * and `tools/list`, all within the timeout. The outcome moves the connection's health and
 * counters in Postgres and is published as `health-check` (and `connection-status`) events.
 */
export class HealthCheckService {
  constructor(
    private readonly deps: {
      repository: ConnectionRepository;
      supervisor: Supervisor;
      events: EventBus;
      liveLoad: LiveLoad;
      degradedThreshold: number;
      logger: Logger;
    },
  ) {}

  async check(connectionId: string, timeoutOverride?: number): Promise<mcpRegistry.HealthCheckResponse> {
    const row = await this.deps.repository.find(connectionId);
    if (!row) throw notFound(`No connection ${connectionId}`, { connectionId });
    if (row.status === 'disconnected') throw conflict('The connection is disconnected; reactivate it with PATCH status before checking it', { connectionId });
    return this.checkRow(row, timeoutOverride);
  }

  /** Checks one connection; `withDiagnostics: false` (batches) skips reading the process and live load. */
  async checkRow(row: ConnectionRow, timeoutOverride?: number, withDiagnostics = true): Promise<mcpRegistry.HealthCheckResponse> {
    const timeoutMs = timeoutOverride ?? row.healthCheckTimeout;
    const started = performance.now();
    let tools: ReportedTool[] | undefined;
    let error: string | undefined;
    try {
      tools = await withTimeout(
        (async () => {
          const session = await this.deps.supervisor.session(sessionTarget(row), timeoutMs);
          await session.client.ping({ timeout: timeoutMs });
          return listAllTools(session, timeoutMs);
        })(),
        timeoutMs,
      );
    } catch (caught) {
      error = caught instanceof Error ? caught.message : String(caught);
      // A server that hung or broke the session gets a fresh one next time.
      await this.deps.supervisor.discard(row.id).catch(() => undefined);
    }
    const responseTime = round(performance.now() - started);
    const ok = tools !== undefined;
    const recent = appendRecent(row.recentChecks, ok);
    const health = healthAfter({ ok, responseTime, timeoutMs }, recent, this.deps.degradedThreshold);
    const status = statusAfter(row.status, ok);
    const now = new Date();
    const digest = tools ? createHash('sha256').update(JSON.stringify(tools)).digest('hex') : undefined;
    // The connection may have been disconnected while the check ran: never resurrect it.
    const updated = await this.deps.repository.prisma.connection.updateMany({
      where: { id: row.id, status: { not: 'disconnected' } },
      data: {
        healthStatus: health,
        status,
        lastCheckAt: now,
        lastResponseTime: responseTime,
        lastError: error ?? null,
        upSince: ok ? (row.upSince ?? now) : null,
        checksPerformed: { increment: 1 },
        failedChecks: { increment: ok ? 0 : 1 },
        recentChecks: recent,
        ...(digest && { toolsDigest: digest }),
      },
    });
    if (updated.count > 0) {
      if (tools && digest !== row.toolsDigest) await this.deps.repository.replaceTools(row.id, row.declaredCapabilities, tools);
      const timestamp = now.toISOString();
      await this.deps.events.publish({ type: 'health-check', connectionId: row.id, health, responseTime, ...(error && { error }), timestamp });
      if (status !== row.status) await this.deps.events.publish({ type: 'connection-status', connectionId: row.id, status, previousStatus: row.status, timestamp });
    }
    const diagnostics = this.deps.supervisor.diagnostics(row.id);
    const load = withDiagnostics ? await this.deps.liveLoad.snapshot() : new Map<string, number>();
    return {
      connectionId: row.id,
      health: { status: health, responseTime, timestamp: now.toISOString() },
      diagnostics: {
        processRunning: diagnostics.processRunning,
        memoryUsage: formatBytes(diagnostics.memoryBytes),
        cpuUsage: diagnostics.cpuUsage,
        activeRequests: load.get(row.id) ?? 0,
        pid: diagnostics.pid,
        restarts: diagnostics.restarts,
        tools: tools?.length ?? 0,
      },
      ...(error && { error }),
    };
  }

  /** Checks many connections with bounded parallelism; missing ones are reported, not thrown. */
  async batch(connectionIds: string[], timeout: number | undefined, concurrency: number): Promise<{
    results: Array<{ connectionId: string; status: mcpRegistry.HealthStatus; responseTime: number; error?: string }>;
    summary: { total: number; healthy: number; unhealthy: number };
  }> {
    const ids = [...new Set(connectionIds)];
    const rows = new Map((await this.deps.repository.findMany(ids)).map((row) => [row.id, row]));
    const results: Array<{ connectionId: string; status: mcpRegistry.HealthStatus; responseTime: number; error?: string }> = new Array(ids.length);
    let next = 0;
    const worker = async () => {
      while (next < ids.length) {
        const index = next++;
        const id = ids[index];
        const row = rows.get(id);
        if (!row) {
          results[index] = { connectionId: id, status: 'error', responseTime: 0, error: 'no such connection' };
          continue;
        }
        if (row.status === 'disconnected') {
          results[index] = { connectionId: id, status: 'error', responseTime: 0, error: 'the connection is disconnected' };
          continue;
        }
        try {
          const result = await this.checkRow(row, timeout, false);
          results[index] = { connectionId: id, status: result.health.status, responseTime: result.health.responseTime, ...(result.error && { error: result.error }) };
        } catch (caught) {
          this.deps.logger.warn({ err: caught, connectionId: id }, 'batch health check failed');
          results[index] = { connectionId: id, status: 'error', responseTime: 0, error: caught instanceof Error ? caught.message : String(caught) };
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, ids.length) }, worker));
    // A degraded connection still answers: it counts as healthy; errors count as unhealthy.
    const healthy = results.filter((result) => result.status === 'healthy' || result.status === 'degraded').length;
    return { results, summary: { total: results.length, healthy, unhealthy: results.length - healthy } };
  }
}
