import type { mcpRegistry } from '@platform/contracts';
import type { z } from 'zod';
import type { HealthCheckService } from '../health-checks/health-checks.service';
import type { ToolCallService } from '../tool-calls/tool-calls.service';

export type BatchResult = z.output<typeof mcpRegistry.BatchHealthCheckResponse>;
export type ToolCallResult = z.output<typeof mcpRegistry.ToolCallResponse>;

/**
 * What talks to MCP servers on demand. Roles `all` and `worker` do it in process; role `api` hands
 * it to a worker through a queue, so API replicas never start stdio programs.
 */
export interface McpOperations {
  check(connectionId: string): Promise<mcpRegistry.HealthCheckResponse>;
  batch(connectionIds: string[], timeout: number | undefined): Promise<BatchResult>;
  callTool(connectionId: string, tool: string, args: Record<string, unknown>, timeout: number | undefined): Promise<ToolCallResult>;
}

export class LocalOperations implements McpOperations {
  constructor(
    private readonly healthChecks: HealthCheckService,
    private readonly toolCalls: ToolCallService,
    private readonly concurrency: number,
  ) {}

  check(connectionId: string) {
    return this.healthChecks.check(connectionId);
  }

  batch(connectionIds: string[], timeout: number | undefined) {
    return this.healthChecks.batch(connectionIds, timeout, this.concurrency);
  }

  callTool(connectionId: string, tool: string, args: Record<string, unknown>, timeout: number | undefined) {
    return this.toolCalls.call(connectionId, tool, args, timeout);
  }
}
