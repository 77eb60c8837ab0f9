import { mcpRegistry } from '@platform/contracts';
import type { ApiRouter } from '@platform/http';
import type { RequestHandler } from 'express';
import type { ConnectionService } from '../connections/connections.service';
import type { McpOperations } from '../operations/mcp-operations';

export function toolCallRoutes(api: ApiRouter, operations: McpOperations, connections: ConnectionService, before: RequestHandler[]): void {
  api.route({
    method: 'post',
    path: '/connections/:connectionId/tools/:tool/call',
    summary: 'Call a tool on a connection (beyond spec 3)',
    description:
      "Used by the workflow engine's MCPToolCall node. Records the request metrics and publishes a `capability-request` event. A tool that reports an error answers 200 with `success: false`; an unreachable or timed-out server answers 502. Calling a tool runs something on the caller's behalf: its owner, an editor of its team or `mcp:admin` (a team viewer gets 403, anyone else 404).",
    tags: ['tools'],
    access: { permission: 'mcp:write' },
    before,
    params: mcpRegistry.ToolCallParams,
    body: mcpRegistry.ToolCallRequest,
    responses: {
      200: { description: 'The tool result', schema: mcpRegistry.ToolCallResponse },
      403: { description: 'A reader of the connection who may not call its tools' },
      404: { description: 'No such connection or tool, or a connection the caller may not read' },
      409: { description: 'The connection is disconnected' },
      502: { description: 'The MCP server failed, timed out or could not be reached' },
    },
    handler: async (req) => {
      // Checked here, on the replica that took the request: the operation may run on a worker.
      await connections.writable(req.valid.params.connectionId, req.auth);
      return operations.callTool(req.valid.params.connectionId, req.valid.params.tool, req.valid.body.arguments, req.valid.body.timeout);
    },
  });
}
