import { mcpRegistry } from '@platform/contracts';
import type { ApiRouter } from '@platform/http';
import type { RequestHandler } from 'express';
import type { ConnectionService } from './connections.service';
import { health } from './connections.view';

const tags = ['connections'];

export function connectionRoutes(api: ApiRouter, service: ConnectionService, before: RequestHandler[]): void {
  api
    .route({
      method: 'get',
      path: '/connections',
      summary: 'List connections',
      description: 'Filters by status, type, protocol and capability; `total` counts every connection, `filtered` those matching.',
      tags,
      access: { permission: 'mcp:read' },
      before,
      query: mcpRegistry.ListConnectionsQuery,
      responses: { 200: { description: 'Connections in list form', schema: mcpRegistry.ListConnectionsResponse } },
      handler: (req) => service.list(req.valid.query),
    })
    .route({
      method: 'post',
      path: '/connections',
      summary: 'Register a connection',
      description: 'A `stdio` connection starts a program on the registry host: it needs `mcp:admin` and a command on MCP_STDIO_ALLOWED_COMMANDS.',
      tags,
      access: { permission: 'mcp:write' },
      before,
      body: mcpRegistry.RegisterConnectionRequest,
      responses: {
        201: { description: 'Registered; health `initializing` until the first check', schema: mcpRegistry.RegisterConnectionResponse },
        409: { description: 'A connection of that name is registered' },
      },
      handler: async (req) => {
        const row = await service.register(req.valid.body, req.auth);
        return {
          id: row.id,
          name: row.name,
          status: row.status,
          connection: { id: row.id, type: row.type, protocol: row.protocol, capabilities: row.capabilityNames, health: health(row) },
          createdAt: row.createdAt.toISOString(),
        };
      },
    })
    .route({
      method: 'get',
      path: '/connections/:connectionId',
      summary: 'A connection in detail form',
      tags,
      access: { permission: 'mcp:read' },
      before,
      params: mcpRegistry.ConnectionIdParams,
      responses: {
        200: { description: 'The connection, with the tools its server reports', schema: mcpRegistry.ConnectionDetail },
        404: { description: 'No such connection' },
      },
      handler: (req) => service.detail(req.valid.params.connectionId),
    })
    .route({
      method: 'patch',
      path: '/connections/:connectionId',
      summary: 'Change status, metadata, health-check settings or capacity',
      tags,
      access: { permission: 'mcp:write' },
      before,
      params: mcpRegistry.ConnectionIdParams,
      body: mcpRegistry.UpdateConnectionRequest,
      responses: { 200: { description: 'The connection in detail form', schema: mcpRegistry.ConnectionDetail }, 404: { description: 'No such connection' } },
      handler: async (req) => {
        await service.update(req.valid.params.connectionId, req.valid.body, req.auth);
        return service.detail(req.valid.params.connectionId);
      },
    })
    .route({
      method: 'delete',
      path: '/connections/:connectionId',
      summary: 'Disconnect a connection',
      description: 'Marks it `disconnected`, stops its scheduled checks and ends its session and server process.',
      tags,
      access: { permission: 'mcp:write' },
      before,
      params: mcpRegistry.ConnectionIdParams,
      responses: { 200: { description: 'Disconnected', schema: mcpRegistry.DisconnectResponse }, 404: { description: 'No such connection' } },
      handler: async (req) => {
        const row = await service.disconnect(req.valid.params.connectionId, req.auth);
        return {
          id: row.id,
          status: 'disconnected' as const,
          message: `Connection ${row.name} disconnected`,
          disconnectedAt: (row.disconnectedAt ?? new Date()).toISOString(),
        };
      },
    });
}
