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
      description:
        "Only the connections the caller may read (its own, its teams', every one for `mcp:admin`). Filters by status, type, protocol and capability; `total` counts the connections the caller may read, `filtered` those matching.",
      tags,
      access: { permission: 'mcp:read' },
      before,
      query: mcpRegistry.ListConnectionsQuery,
      responses: { 200: { description: 'Connections in list form', schema: mcpRegistry.ListConnectionsResponse } },
      handler: (req) => service.list(req.valid.query, req.auth),
    })
    .route({
      method: 'post',
      path: '/connections',
      summary: 'Register a connection',
      description:
        'The caller owns it; `team` shares it with a team the caller edits (403 otherwise). A `stdio` connection starts a program on the registry host: it needs `mcp:admin` and a command on MCP_STDIO_ALLOWED_COMMANDS.',
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
          owner: row.owner,
          team: row.team,
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
        404: { description: 'No such connection, or one the caller may not read' },
      },
      handler: (req) => service.detail(req.valid.params.connectionId, req.auth),
    })
    .route({
      method: 'patch',
      path: '/connections/:connectionId',
      summary: 'Change status, metadata, health-check settings or capacity',
      description: 'Its owner, an editor of its team or `mcp:admin`: a team viewer gets 403, anyone else 404.',
      tags,
      access: { permission: 'mcp:write' },
      before,
      params: mcpRegistry.ConnectionIdParams,
      body: mcpRegistry.UpdateConnectionRequest,
      responses: {
        200: { description: 'The connection in detail form', schema: mcpRegistry.ConnectionDetail },
        403: { description: 'A reader of the connection who may not change it' },
        404: { description: 'No such connection, or one the caller may not read' },
      },
      handler: async (req) => {
        await service.update(req.valid.params.connectionId, req.valid.body, req.auth);
        return service.detail(req.valid.params.connectionId, req.auth);
      },
    })
    .route({
      method: 'delete',
      path: '/connections/:connectionId',
      summary: 'Disconnect a connection',
      description:
        'Marks it `disconnected`, stops its scheduled checks and ends its session and server process. Its owner, an editor of its team or `mcp:admin`.',
      tags,
      access: { permission: 'mcp:write' },
      before,
      params: mcpRegistry.ConnectionIdParams,
      responses: {
        200: { description: 'Disconnected', schema: mcpRegistry.DisconnectResponse },
        403: { description: 'A reader of the connection who may not change it' },
        404: { description: 'No such connection, or one the caller may not read' },
      },
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
