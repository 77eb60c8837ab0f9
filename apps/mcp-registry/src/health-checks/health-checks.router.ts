import { mcpRegistry } from '@platform/contracts';
import type { ApiRouter } from '@platform/http';
import type { RequestHandler } from 'express';
import type { ConnectionService } from '../connections/connections.service';
import type { McpOperations } from '../operations/mcp-operations';
import { withRefused } from './health-checks.service';

const tags = ['health checks'];

export function healthCheckRoutes(api: ApiRouter, operations: McpOperations, connections: ConnectionService, before: RequestHandler[]): void {
  api
    .route({
      method: 'post',
      path: '/connections/health-check/batch',
      summary: 'Check many connections',
      description:
        'Bounded parallelism and a per-check timeout; failures appear in `results` with their error and count in `summary.unhealthy`. A connection the caller may not read is reported as `no such connection`, one they may read but not change (a team viewer) as refused; neither is checked.',
      tags,
      access: { permission: 'mcp:write' },
      before,
      body: mcpRegistry.BatchHealthCheckRequest,
      responses: { 200: { description: 'One result per connection', schema: mcpRegistry.BatchHealthCheckResponse } },
      handler: async (req) => {
        const ids = [...new Set(req.valid.body.connectionIds)];
        const { allowed, refused } = await connections.partitionWritable(ids, req.auth);
        const checked = allowed.length > 0 ? (await operations.batch(allowed, req.valid.body.timeout)).results : [];
        return withRefused(ids, checked, refused);
      },
    })
    .route({
      method: 'post',
      path: '/connections/:connectionId/health-check',
      summary: 'Check one connection now',
      description:
        "MCP initialize (once per session), ping and tools/list within the connection's timeout. A failed check is a result (`error`), not an HTTP error. Its owner, an editor of its team or `mcp:admin` (a team viewer gets 403, anyone else 404).",
      tags,
      access: { permission: 'mcp:write' },
      before,
      params: mcpRegistry.ConnectionIdParams,
      responses: {
        200: { description: 'The outcome and diagnostics of the real process', schema: mcpRegistry.HealthCheckResponse },
        403: { description: 'A reader of the connection who may not check it' },
        404: { description: 'No such connection, or one the caller may not read' },
        409: { description: 'The connection is disconnected' },
      },
      handler: async (req) => {
        // Checked here, on the replica that took the request: the operation may run on a worker.
        await connections.writable(req.valid.params.connectionId, req.auth);
        return operations.check(req.valid.params.connectionId);
      },
    });
}
