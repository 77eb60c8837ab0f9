import { JsonApiCmsClient, UpstreamError, type JsonApiResource } from '@platform/clients';
import { mcpRegistry, type AccessTokenClaims } from '@platform/contracts';
import { ApiError } from '@platform/http';
import { isDeepStrictEqual } from 'node:util';
import type { z } from 'zod';
import { publicEndpoint, type ConnectionRow, type ConnectionService } from '../connections/connections.service';

type SyncRequest = z.output<typeof mcpRegistry.CmsSyncRequest>;
type SyncResponse = z.output<typeof mcpRegistry.CmsSyncResponse>;

/** The resource type when the collection URL is not Drupal's `/jsonapi/<entity>/<bundle>`. */
export const CMS_RESOURCE_TYPE = 'mcp_connection';
const TIMEOUT_MS = 10_000;

/** Drupal types a collection `/jsonapi/node/mcp_connection` as `node--mcp_connection`. */
export function resourceTypeOf(collection: string): string {
  const match = /\/jsonapi\/([a-z0-9_]+)\/([a-z0-9_]+)\/?$/.exec(new URL(collection).pathname);
  return match ? `${match[1]}--${match[2]}` : CMS_RESOURCE_TYPE;
}

/**
 * A connection as a JSON:API resource's attributes (`type` is reserved by JSON:API). Header values
 * (credentials, often) never leave the registry: the endpoint is the redacted one of the views.
 */
function attributesOf(row: ConnectionRow): Record<string, unknown> {
  return {
    registry_id: row.id,
    name: row.name,
    connection_type: row.type,
    protocol: row.protocol,
    endpoint: publicEndpoint(row.endpoint),
    capabilities: row.declaredCapabilities,
    metadata: row.metadata,
    status: row.status,
  };
}

/**
 * A CMS call that failed, as the caller sees it: 400 for a URL the outbound guard refuses, else
 * 502 with the CMS's status and a short reason. Never the CMS's body: the URL is the caller's, and
 * whatever answers there (an internal service, say) must not be echoed back.
 */
function cmsFailure(error: unknown, what: string): ApiError {
  if (!(error instanceof UpstreamError)) return error instanceof ApiError ? error : new ApiError(502, 'api_error', 'cms_unavailable', `The CMS ${what} failed`);
  if (error.reason === 'blocked')
    return new ApiError(
      400,
      'validation_error',
      'invalid_url',
      'The CMS URL may not be used: it is not http(s), is a private address, or redirects to another host',
      {
        reason: 'blocked',
      },
    );
  const reasons: Record<UpstreamError['reason'], string> = {
    status: `answered ${what} with ${error.upstreamStatus}`,
    timeout: `did not answer ${what} within ${TIMEOUT_MS} ms`,
    network: `could not be reached for ${what}`,
    invalid_response: `answered ${what} with a body that is not JSON:API`,
    blocked: 'is refused by the outbound guard',
  };
  return new ApiError(502, 'api_error', 'cms_unavailable', `The CMS ${reasons[error.reason]}`, {
    reason: error.reason,
    ...(error.upstreamStatus !== undefined && { status: error.upstreamStatus }),
  });
}

/** A pulled endpoint: header values the CMS holds as `[redacted]` (pushed by a registry) are dropped. */
function pulledEndpoint(endpoint: unknown): unknown {
  if (!endpoint || typeof endpoint !== 'object' || !('headers' in endpoint) || !endpoint.headers || typeof endpoint.headers !== 'object') return endpoint;
  const headers = Object.entries(endpoint.headers as Record<string, unknown>).filter(([, value]) => value !== '[redacted]');
  const { headers: _dropped, ...rest } = endpoint as Record<string, unknown>;
  return headers.length > 0 ? { ...rest, headers: Object.fromEntries(headers) } : rest;
}

/**
 * Synchronises with a CMS over JSON:API, through the platform's one CMS client (every call through
 * the outbound guard). `pull` registers the connections defined on the CMS and unknown here
 * (matched by `registry_id`, then name), through the same guard as a registration; `push` creates
 * or updates the CMS resource of every connection that is not disconnected; `bidirectional`
 * pulls, then pushes (so pulled connections get their `registry_id` on the CMS).
 */
export class CmsSyncService {
  constructor(private readonly deps: { connections: ConnectionService; allowPrivate: boolean }) {}

  async sync(request: SyncRequest, caller: AccessTokenClaims | undefined): Promise<SyncResponse> {
    const collection = request.cmsEndpoint;
    const cms = new JsonApiCmsClient({
      baseUrl: collection,
      token: () => request.apiKey,
      allowPrivate: this.deps.allowPrivate,
      timeoutMs: TIMEOUT_MS,
      retries: 1,
    });
    const result: SyncResponse = {
      syncMode: request.syncMode,
      cmsEndpoint: collection,
      pushed: { created: 0, updated: 0, unchanged: 0 },
      pulled: { created: 0, unchanged: 0 },
      errors: [],
      syncedAt: '',
    };
    const remote = await cms.list(collection).catch((error: unknown) => {
      throw cmsFailure(error, 'the list of connections');
    });
    const type = remote[0]?.type ?? resourceTypeOf(collection);
    if (request.syncMode !== 'push') await this.pull(remote, await this.deps.connections.live(), caller, result);
    // Only what the caller may read leaves for their CMS; pulled names are matched against all (names are unique).
    if (request.syncMode !== 'pull')
      await this.push(cms, collection, type, remote, await this.deps.connections.live(this.deps.connections.readScope(caller)), result);
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
        endpoint: pulledEndpoint(attributes.endpoint),
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

  private async push(
    cms: JsonApiCmsClient,
    collection: string,
    type: string,
    remote: JsonApiResource[],
    local: ConnectionRow[],
    result: SyncResponse,
  ): Promise<void> {
    for (const row of local) {
      const attributes = attributesOf(row);
      const match =
        remote.find((resource) => resource.attributes.registry_id === row.id) ??
        remote.find((resource) => resource.attributes.name === row.name && !resource.attributes.registry_id);
      try {
        if (!match) {
          await cms.create(collection, type, attributes);
          result.pushed.created += 1;
        } else if (Object.entries(attributes).some(([key, value]) => !isDeepStrictEqual(match.attributes[key], value))) {
          await cms.update(collection, match, attributes);
          result.pushed.updated += 1;
        } else {
          result.pushed.unchanged += 1;
        }
      } catch (error) {
        result.errors.push({ name: row.name, error: cmsFailure(error, match ? 'an update' : 'a creation').message });
      }
    }
  }
}
