import type { mcpRegistry } from '@platform/contracts';
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { conflict, notFound } from '@platform/http';
import { type Logger } from '@platform/telemetry';
import type { ConnectionRow, ConnectionService } from '../connections/connections.service';
import { round } from '../numbers';
import type { HealthCheckRepository } from './health-checks.repository';
import type { EventBus, RegistryEvent } from '../events/event-bus';
import type { LiveLoad } from '../supervisor/live-load';
import { describeMcpFailure } from '../supervisor/failure';
import { formatBytes } from '../supervisor/process-info';
import type { McpSession, ReportedTool, SessionTarget } from '../supervisor/mcp-session';
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

interface Probe {
  tools?: ReportedTool[];
  error?: string;
  responseTime: number;
  timeoutMs: number;
}

interface Outcome extends Probe {
  row: ConnectionRow;
  ok: boolean;
  recent: boolean[];
  at: Date;
  health: 'healthy' | 'degraded' | 'error';
  status: string;
  upSince: Date | null;
  digest?: string;
}

/**
 * What a check needs of a tools/list answer, validated: a fifth of the cost of the SDK's full
 * ListToolsResultSchema (annotations, icons, ...), which matters over a batch of 50.
 */
const ToolsPage = z
  .object({
    tools: z.array(
      z.object({ name: z.string().min(1), description: z.string().optional(), inputSchema: z.object({ type: z.literal('object') }).loose() }).loose(),
    ),
    nextCursor: z.string().optional(),
  })
  .loose();

async function listAllTools(session: McpSession, timeout: number): Promise<ReportedTool[]> {
  const tools: ReportedTool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 20; page += 1) {
    // `request` rather than `listTools`: the latter compiles a JSON-schema validator for every
    // tool's output schema on each call, which made checks CPU-bound; checks only read the list.
    const result = await session.client.request({ method: 'tools/list', params: cursor ? { cursor } : {} }, ToolsPage, { timeout });
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  return tools;
}

/**
 * A health check speaks MCP: the session's initialize handshake (once per session), then `ping`
 * and `tools/list` (skipped while a server that announces tool changes has announced none), all
 * within the timeout. The outcome moves the connection's health and
 * counters in Postgres and is published as `health-check` (and `connection-status`) events.
 */
export class HealthCheckService {
  constructor(
    private readonly deps: {
      repository: HealthCheckRepository;
      connections: ConnectionService;
      supervisor: Supervisor;
      events: EventBus;
      liveLoad: LiveLoad;
      degradedThreshold: number;
      logger: Logger;
    },
  ) {}

  async check(connectionId: string, timeoutOverride?: number): Promise<mcpRegistry.HealthCheckResponse> {
    const row = await this.deps.connections.find(connectionId);
    if (!row) throw notFound(`No connection ${connectionId}`, { connectionId });
    if (row.status === 'disconnected') throw conflict('The connection is disconnected; reactivate it with PATCH status before checking it', { connectionId });
    return this.checkRow(row, timeoutOverride);
  }

  /** Checks one connection now: probe, record, publish, and report the process's diagnostics. */
  async checkRow(row: ConnectionRow, timeoutOverride?: number): Promise<mcpRegistry.HealthCheckResponse> {
    const outcome = this.judge(row, await this.probe(row, timeoutOverride ?? row.healthCheckTimeout));
    await this.record([outcome]);
    const diagnostics = this.deps.supervisor.diagnostics(row.id);
    const load = await this.deps.liveLoad.snapshot();
    return {
      connectionId: row.id,
      health: { status: outcome.health, responseTime: outcome.responseTime, timestamp: outcome.at.toISOString() },
      diagnostics: {
        processRunning: diagnostics.processRunning,
        memoryUsage: formatBytes(diagnostics.memoryBytes),
        cpuUsage: diagnostics.cpuUsage,
        activeRequests: load.get(row.id) ?? 0,
        pid: diagnostics.pid,
        restarts: diagnostics.restarts,
        tools: outcome.tools?.length ?? 0,
      },
      ...(outcome.error && { error: outcome.error }),
    };
  }

  /** The MCP exchange itself: session (handshake if new), ping, tools/list, within the timeout. */
  private async probe(row: ConnectionRow, timeoutMs: number): Promise<Probe> {
    const started = performance.now();
    try {
      const tools = await withTimeout(
        (async () => {
          const session = await this.deps.supervisor.session(sessionTarget(row), timeoutMs);
          await session.client.ping({ timeout: timeoutMs });
          // A server that announces tool changes is re-listed only after it announced one.
          return session.knownTools() ?? session.listTools(() => listAllTools(session, timeoutMs));
        })(),
        timeoutMs,
      );
      return { tools, responseTime: round(performance.now() - started), timeoutMs };
    } catch (caught) {
      // A server that hung or broke the session gets a fresh one next time.
      await this.deps.supervisor.discard(row.id).catch(() => undefined);
      // Status and a short reason only: never the body a server (or whatever the URL reaches) answered.
      return { error: describeMcpFailure(caught), responseTime: round(performance.now() - started), timeoutMs };
    }
  }

  /** What a probe means for the connection: its next health, status, counters. */
  private judge(row: ConnectionRow, probe: Probe): Outcome {
    const ok = probe.tools !== undefined;
    const recent = appendRecent(row.recentChecks, ok);
    const at = new Date();
    return {
      ...probe,
      row,
      ok,
      recent,
      at,
      health: healthAfter({ ok, responseTime: probe.responseTime, timeoutMs: probe.timeoutMs }, recent, this.deps.degradedThreshold),
      status: statusAfter(row.status, ok),
      upSince: ok ? (row.upSince ?? at) : null,
      digest: probe.tools ? createHash('sha256').update(JSON.stringify(probe.tools)).digest('hex') : undefined,
    };
  }

  /**
   * Writes the outcomes in one statement (a batch of 50 is one round trip), rewrites tool lists
   * that changed, and publishes the events. A connection disconnected meanwhile is left alone.
   */
  private async record(outcomes: Outcome[]): Promise<void> {
    if (outcomes.length === 0) return;
    const values = outcomes.map((o) => ({
      id: o.row.id,
      health: o.health,
      ok: o.ok,
      at: o.at.toISOString(),
      rt: o.responseTime,
      err: o.error ?? null,
      up: o.upSince?.toISOString() ?? null,
      failed: o.ok ? 0 : 1,
      recent: o.recent,
      digest: o.digest ?? null,
    }));
    const updated = await this.deps.repository.recordOutcomes(values);
    const written = new Map(updated.map((row) => [row.id, row.status]));
    const events: RegistryEvent[] = [];
    for (const o of outcomes) {
      if (!written.has(o.row.id)) continue;
      if (o.tools && o.digest !== o.row.toolsDigest) await this.deps.connections.replaceTools(o.row.id, o.row.declaredCapabilities, o.tools);
      const timestamp = o.at.toISOString();
      events.push({
        type: 'health-check',
        connectionId: o.row.id,
        health: o.health,
        responseTime: o.responseTime,
        ...(o.error && { error: o.error }),
        timestamp,
      });
      const status = written.get(o.row.id)!;
      o.status = status;
      if (status !== o.row.status && status === statusAfter(o.row.status, o.ok)) {
        events.push({ type: 'connection-status', connectionId: o.row.id, status, previousStatus: o.row.status, timestamp });
      }
    }
    await this.deps.events.publishAll(events);
  }

  /** Checks many connections with bounded parallelism; missing ones are reported, not thrown. */
  async batch(
    connectionIds: string[],
    timeout: number | undefined,
    concurrency: number,
  ): Promise<{
    results: Array<{ connectionId: string; status: mcpRegistry.HealthStatus; responseTime: number; error?: string }>;
    summary: { total: number; healthy: number; unhealthy: number };
  }> {
    const ids = [...new Set(connectionIds)];
    const rows = new Map((await this.deps.connections.findMany(ids)).map((row) => [row.id, row]));
    const results: Array<{ connectionId: string; status: mcpRegistry.HealthStatus; responseTime: number; error?: string }> = new Array(ids.length);
    const outcomes: Array<Outcome | undefined> = new Array(ids.length);
    let next = 0;
    // Probes run `concurrency` at a time; the outcomes are then written together.
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
        const probe = await this.probe(row, timeout ?? row.healthCheckTimeout);
        outcomes[index] = this.judge(row, probe);
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, ids.length) }, worker));
    await this.record(outcomes.filter((o): o is Outcome => o !== undefined));
    outcomes.forEach((o, index) => {
      if (o) results[index] = { connectionId: o.row.id, status: o.health, responseTime: o.responseTime, ...(o.error && { error: o.error }) };
    });
    // A degraded connection still answers: it counts as healthy; errors count as unhealthy.
    const healthy = results.filter((result) => result.status === 'healthy' || result.status === 'degraded').length;
    return { results, summary: { total: results.length, healthy, unhealthy: results.length - healthy } };
  }
}

type BatchEntry = { connectionId: string; status: mcpRegistry.HealthStatus; responseTime: number; error?: string };

/**
 * A batch's answer over every id asked for, in order: the checked ones as checked, the refused
 * ones (not the caller's to check) as errors with their reason, counted as unhealthy.
 */
export function withRefused(
  ids: string[],
  checked: BatchEntry[],
  refused: Map<string, string>,
): { results: BatchEntry[]; summary: { total: number; healthy: number; unhealthy: number } } {
  const byId = new Map(checked.map((result) => [result.connectionId, result]));
  const results = ids.map(
    (id): BatchEntry => byId.get(id) ?? { connectionId: id, status: 'error', responseTime: 0, error: refused.get(id) ?? 'no such connection' },
  );
  const healthy = results.filter((result) => result.status === 'healthy' || result.status === 'degraded').length;
  return { results, summary: { total: results.length, healthy, unhealthy: results.length - healthy } };
}
