import type { mcpRegistry } from '@platform/contracts';
import { ApiError, badRequest, conflict, notFound, OutboundError } from '@platform/http';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { ConnectionService } from '../connections/connections.service';
import { round } from '../numbers';
import type { EventBus } from '../events/event-bus';
import { sessionTarget } from '../health-checks/health-checks.service';
import type { LiveLoad } from '../supervisor/live-load';
import { describeMcpFailure } from '../supervisor/failure';
import type { Supervisor } from '../supervisor/supervisor';

const upstream = (message: string, code: string, details?: unknown) => new ApiError(502, 'api_error', code, message, details);

/**
 * Calls a tool on a connection (the workflow engine's MCPToolCall node): counts the request in the
 * live load while it runs, then records its latency and outcome and publishes `capability-request`.
 */
export class ToolCallService {
  constructor(private readonly deps: { connections: ConnectionService; supervisor: Supervisor; events: EventBus; liveLoad: LiveLoad }) {}

  async call(connectionId: string, tool: string, args: Record<string, unknown>, timeoutOverride?: number) {
    const row = await this.deps.connections.find(connectionId);
    if (!row) throw notFound(`No connection ${connectionId}`, { connectionId });
    if (row.status === 'disconnected') throw conflict('The connection is disconnected', { connectionId });
    const known = await this.deps.connections.toolNames(connectionId);
    if (known.length > 0 && !known.includes(tool)) throw notFound(`The connection reports no tool named "${tool}"`, { connectionId, tool, tools: known });
    const timeout = timeoutOverride ?? row.healthCheckTimeout;
    await this.deps.liveLoad.begin(connectionId);
    const started = performance.now();
    let result: mcpRegistry.ToolCallResult | undefined;
    let failure: unknown;
    try {
      const session = await this.deps.supervisor.session(sessionTarget(row), timeout);
      result = (await session.client.callTool({ name: tool, arguments: args }, undefined, { timeout })) as mcpRegistry.ToolCallResult;
    } catch (error) {
      failure = error;
    } finally {
      await this.deps.liveLoad.end(connectionId);
    }
    const latency = round(performance.now() - started);
    const success = result !== undefined && result.isError !== true;
    const message = failure === undefined ? undefined : describeMcpFailure(failure);
    await this.deps.connections.recordCall(connectionId, tool, success, latency, message);
    await this.deps.events.publish({ type: 'capability-request', connectionId, capability: tool, success, latency, timestamp: new Date().toISOString() });
    if (failure) throw this.toApiError(failure, tool);
    return { connectionId, tool, success, latency, result: result! };
  }

  private toApiError(error: unknown, tool: string): ApiError {
    if (error instanceof McpError) {
      if (error.code === ErrorCode.InvalidParams)
        return badRequest(`The server refused the arguments of "${tool}": ${error.message}`, { mcpCode: error.code }, 'invalid_tool_arguments');
      if (error.code === ErrorCode.MethodNotFound) return notFound(`The server does not offer "${tool}"`, { mcpCode: error.code });
      if (error.code === ErrorCode.RequestTimeout) return upstream(`The server did not answer "${tool}" in time`, 'mcp_timeout');
      return upstream(`The server failed "${tool}": ${error.message}`, 'mcp_error', { mcpCode: error.code });
    }
    // The connection's URL is one the outbound guard refuses (a private address): the caller's to fix.
    if (error instanceof OutboundError && error.status < 500)
      return badRequest(`The connection's endpoint.url is refused: ${error.message}`, { field: 'endpoint.url', reason: error.reason }, 'invalid_url');
    return upstream(`The MCP server could not be reached: ${describeMcpFailure(error)}`, 'mcp_unavailable');
  }
}
