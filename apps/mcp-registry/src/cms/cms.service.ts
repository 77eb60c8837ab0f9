import { mcpRegistry, type AccessTokenClaims } from '@platform/contracts';
import { isDeepStrictEqual } from 'node:util';
import type { z } from 'zod';
import type { ConnectionRow, ConnectionService } from '../connections/connections.service';
import { JsonApiCollection, type JsonApiResource } from './cms-client';

type SyncRequest = z.output<typeof mcpRegistry.CmsSyncRequest>;
type SyncResponse = z.output<typeof mcpRegistry.CmsSyncResponse>;

export const CMS_RESOURCE_TYPE = 'mcp_connection';

/** A connection as a JSON:API resource's attributes (`type` is reserved by JSON:API). */
function attributesOf(row: ConnectionRow): Record<string, unknown> {
  return {
    registry_id: row.id,
    name: row.name,
    connection_type: row.type,
    protocol: row.protocol,
    endpoint: row.endpoint,
    capabilities: row.declaredCapabilities,
    metadata: row.metadata,
    status: row.status,
  };
}

/**
 * Synchronises with a CMS over JSON:API. `pull` registers the connections defined on the CMS and
 * unknown here (matched by `registry_id`, then name), through the same guard as a registration;
 * `push` creates or updates the CMS resource of every connection that is not disconnected;
 * `bidirectional` pulls, then pushes (so pulled connections get their `registry_id` on the CMS).
 */
export class CmsSyncService {
  constructor(private readonly deps: { connections: ConnectionService; allowPrivate: boolean }) {}

  async sync(request: SyncRequest, caller: AccessTokenClaims | undefined): Promise<SyncResponse> {
    const cms = new JsonApiCollection(request.cmsEndpoint, request.apiKey, { allowPrivate: this.deps.allowPrivate });
    const result: SyncResponse = {
      syncMode: request.syncMode,
      cmsEndpoint: request.cmsEndpoint,
      pushed: { created: 0, updated: 0, unchanged: 0 },
      pulled: { created: 0, unchanged: 0 },
      errors: [],
      syncedAt: '',
    };
    const remote = await cms.list();
    const type = remote[0]?.type ?? CMS_RESOURCE_TYPE;
    let local = await this.deps.connections.live();
    if (request.syncMode !== 'push') {
      await this.pull(remote, local, caller, result);
      local = await this.deps.connections.live();
    }
    if (request.syncMode !== 'pull') await this.push(cms, type, remote, local, result);
    result.syncedAt = new Date().toISOString();
    return result;
  }

  private async pull(remote: JsonApiResource[], local: ConnectionRow[], caller: AccessTokenClaims | undefined, result: SyncResponse): Promise<void> {
    const ids = new Set(local.map((row) => row.id));
    const names = new Set(local.map((row) => row.name));
    for (const resource of remote) {
      const attributes = resource.attributes;
      const name = String(attributes.name ?? resource.id);
      if ((typeof attributes.registry_id === 'string' && ids.has(attributes.registry_id)) || names.has(name)) {
        result.pulled.unchanged += 1;
        continue;
      }
      const parsed = mcpRegistry.RegisterConnectionRequest.safeParse({
        name,
        type: attributes.connection_type ?? 'server',
        protocol: attributes.protocol,
        endpoint: attributes.endpoint,
        capabilities: attributes.capabilities ?? [],
        metadata: attributes.metadata ?? {},
        ...(attributes.health_check !== undefined && { healthCheck: attributes.health_check }),
      });
      if (!parsed.success) {
        result.errors.push({ name, error: parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ') });
        continue;
      }
      try {
        await this.deps.connections.register(parsed.data, caller);
        names.add(name);
        result.pulled.created += 1;
      } catch (error) {
        result.errors.push({ name, error: (error as Error).message });
      }
    }
  }

  private async push(cms: JsonApiCollection, type: string, remote: JsonApiResource[], local: ConnectionRow[], result: SyncResponse): Promise<void> {
    for (const row of local) {
      const attributes = attributesOf(row);
      const match =
        remote.find((resource) => resource.attributes.registry_id === row.id) ??
        remote.find((resource) => resource.attributes.name === row.name && !resource.attributes.registry_id);
      try {
        if (!match) {
          await cms.create(type, attributes);
          result.pushed.created += 1;
        } else if (Object.entries(attributes).some(([key, value]) => !isDeepStrictEqual(match.attributes[key], value))) {
          await cms.update(match, attributes);
          result.pushed.updated += 1;
        } else {
          result.pushed.unchanged += 1;
        }
      } catch (error) {
        result.errors.push({ name: row.name, error: (error as Error).message });
      }
    }
  }
}
