import { mcpRegistry } from '@platform/contracts';
import type { ApiRouter } from '@platform/http';
import type { RequestHandler } from 'express';
import type { McpOperations } from '../operations/mcp-operations';

const tags = ['health checks'];

export function healthCheckRoutes(api: ApiRouter, operations: McpOperations, before: RequestHandler[]): void {
  api
    .route({
      method: 'post',
      path: '/connections/health-check/batch',
      summary: 'Check many connections',
      description: 'Bounded parallelism and a per-check timeout; failures appear in `results` with their error and count in `summary.unhealthy`.',
      tags,
      access: { permission: 'mcp:write' },
      before,
      body: mcpRegistry.BatchHealthCheckRequest,
      responses: { 200: { description: 'One result per connection', schema: mcpRegistry.BatchHealthCheckResponse } },
      handler: (req) => operations.batch(req.valid.body.connectionIds, req.valid.body.timeout),
    })
    .route({
      method: 'post',
      path: '/connections/:connectionId/health-check',
      summary: 'Check one connection now',
      description:
        "MCP initialize (once per session), ping and tools/list within the connection's timeout. A failed check is a result (`error`), not an HTTP error.",
      tags,
      access: { permission: 'mcp:write' },
      before,
      params: mcpRegistry.ConnectionIdParams,
      responses: {
        200: { description: 'The outcome and diagnostics of the real process', schema: mcpRegistry.HealthCheckResponse },
        404: { description: 'No such connection' },
        409: { description: 'The connection is disconnected' },
      },
      handler: (req) => operations.check(req.valid.params.connectionId),
    });
}
