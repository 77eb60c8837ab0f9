import { mcpRegistry } from '@platform/contracts';
import type { ApiRouter } from '@platform/http';
import type { RequestHandler } from 'express';
import type { ConnectionService } from '../connections/connections.service';
import type { RegistryService } from './registry.service';

const tags = ['registry'];

export function registryRoutes(api: ApiRouter, service: RegistryService, connections: ConnectionService, before: RequestHandler[]): void {
  api
    .route({
      method: 'get',
      path: '/registry/stats',
      summary: 'Registry statistics',
      description: 'Over the connections the caller may read and the tool calls made to them.',
      tags,
      access: { permission: 'mcp:read' },
      before,
      responses: { 200: { description: 'Counts, protocols, capabilities and performance', schema: mcpRegistry.RegistryStatsResponse } },
      handler: (req) => service.stats(connections.readScope(req.auth)),
    })
    .route({
      method: 'get',
      path: '/registry/export',
      summary: 'Export the registry configuration',
      description:
        'The connections the caller may read. Header values of connections (credentials, often) are `[redacted]`, as in the list and detail views. `includeSecrets=true` exports them as stored and needs `mcp:admin` (403 otherwise); `secretsIncluded` says which export this is. Importing a redacted export keeps the stored value of each `[redacted]` header.',
      tags,
      access: { permission: 'mcp:read' },
      before,
      query: mcpRegistry.RegistryExportQuery,
      responses: {
        200: { description: 'Every connection the caller may read that is not disconnected', schema: mcpRegistry.RegistryExport },
        403: { description: '`includeSecrets=true` without `mcp:admin`' },
      },
      handler: (req) => service.export(req.valid.query.includeSecrets, req.auth),
    })
    .route({
      method: 'post',
      path: '/registry/import',
      summary: 'Import an export (beyond spec 3)',
      description:
        'Each entry passes the registration guard (stdio needs `mcp:admin` and an allowed command); refused entries are reported in `errors`. Imported connections belong to the caller. With `onConflict: replace`, a registered connection is replaced only by its owner, an editor of its team or an `mcp:admin` (403 otherwise); a connection without an owner only by an admin.',
      tags,
      access: { permission: 'mcp:write' },
      before,
      body: mcpRegistry.RegistryImportRequest,
      responses: {
        200: { description: 'What was imported, updated, skipped or refused', schema: mcpRegistry.RegistryImportResponse },
        403: { description: '`onConflict: replace` of a connection the caller may not change' },
      },
      handler: (req) => service.import(req.valid.body, req.auth),
    })
    .document({
      method: 'get',
      path: '/registry/stream',
      upgrade: 'websocket',
      summary: 'Registry events over WebSocket',
      description:
        'Authenticate with `Authorization: Bearer` or `?access_token=`; needs `mcp:read`. Send `{"action":"subscribe","events":["connection-status","health-check","capability-request"]}`; messages are `{type, connectionId, ...}` as they happen on any replica, for the connections the caller may read.',
      tags,
      access: { permission: 'mcp:read' },
      responses: { 101: { description: 'Switching protocols' } },
    });
}
