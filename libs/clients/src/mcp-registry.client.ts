import { mcpRegistry } from '@platform/contracts';
import type { z } from 'zod';
import { ServiceClient, type ClientOptions } from './service-client';

type Call = { bearer?: string; timeoutMs?: number; signal?: AbortSignal };

/** The MCP connection registry (`MCP_REGISTRY_URL`, default port 3000): discovery and tool calls. */
export class McpRegistryClient {
  readonly http: ServiceClient;

  constructor(options: Omit<ClientOptions, 'service'>) {
    this.http = new ServiceClient({ service: 'mcp-registry', ...options });
  }

  /** `POST /connections/discover`: a read, safe to retry. */
  discover(request: z.input<typeof mcpRegistry.DiscoverRequest>, call: Call = {}): Promise<z.infer<typeof mcpRegistry.DiscoverResponse>> {
    return this.http.request('POST', '/connections/discover', { ...call, body: request, schema: mcpRegistry.DiscoverResponse, idempotent: true });
  }

  /** `POST /connections/{id}/tools/{tool}/call`: a tool may have effects, so it is never retried here. */
  callTool(
    connectionId: string,
    tool: string,
    args: Record<string, unknown>,
    call: Call & { toolTimeoutMs?: number } = {},
  ): Promise<z.infer<typeof mcpRegistry.ToolCallResponse>> {
    return this.http.request('POST', `/connections/${encodeURIComponent(connectionId)}/tools/${encodeURIComponent(tool)}/call`, {
      ...call,
      body: { arguments: args, ...(call.toolTimeoutMs !== undefined && { timeout: call.toolTimeoutMs }) },
      schema: mcpRegistry.ToolCallResponse,
    });
  }

  capabilities(call: Call = {}): Promise<z.infer<typeof mcpRegistry.CapabilitiesResponse>> {
    return this.http.request('GET', '/capabilities', { ...call, schema: mcpRegistry.CapabilitiesResponse });
  }
}
