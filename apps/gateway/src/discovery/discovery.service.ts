import type { McpRegistryClient, MeshClient, RegistryClient } from '@platform/clients';
import { mcpRegistry, registry, type gateway } from '@platform/contracts';
import { ApiError } from '@platform/http';
import { z } from 'zod';
import type { Caller } from '../agents/agents.service';

type Item = z.infer<typeof gateway.DiscoveredItem>;
type Source = 'registry' | 'mesh' | 'mcp-registry';

// What discovery reads of the registry's and mcp-registry's answers, picked from their contracts: on
// this hot path a page of full records costs several times more to validate than these fields.
const RegistryHits = z.object({
  items: z.array(registry.Agent.pick({ namespace: true, name: true, capabilities: true, agentType: true, status: true })),
});
const McpHits = z.object({
  connections: z.array(
    mcpRegistry.DiscoverResponse.shape.connections.element.pick({ id: true, name: true, capabilities: true, health: true }).extend({ endpoint: z.unknown() }),
  ),
});

/**
 * One answer from three sources, asked in parallel: published agents (registry), live agents
 * (mesh) and MCP servers (mcp-registry). A source that fails is reported in `sources` and the
 * others still answer; all three failing is a 502 naming them.
 */
export class DiscoveryService {
  constructor(
    private readonly deps: {
      registry: RegistryClient;
      mesh: MeshClient;
      mcpRegistry: McpRegistryClient;
      /** The caller's token delegated to the gateway (AgentDependencies.delegate): each source lists what the caller may read. */
      delegate: (userToken: string) => Promise<string>;
    },
  ) {}

  async discover(caller: Caller, query: z.infer<typeof gateway.DiscoverQuery>) {
    const user = { bearer: caller.bearer };
    // The mesh and mcp-registry scope their lists to who asks: asked as the caller, never with the
    // gateway's own key, they show exactly what the caller would see asking them directly.
    const service = { bearer: await this.deps.delegate(caller.bearer) };
    const framework = query.framework?.toLowerCase();
    const asks: Record<Source, Promise<Item[]>> = {
      // The calls of RegistryClient.list and McpRegistryClient.discover, with the lean schemas above.
      registry: this.deps.registry.http
        .request('GET', '/api/v1/agents', { query: { capability: query.capability, limit: query.limit }, schema: RegistryHits, ...user })
        .then((page) =>
          page.items
            .filter((agent) => !framework || agent.agentType?.toLowerCase() === framework)
            .map((agent) => ({
              source: 'registry' as const,
              kind: 'agent' as const,
              id: `${agent.namespace}/${agent.name}`,
              name: agent.name,
              capabilities: agent.capabilities,
              framework: agent.agentType,
              status: agent.status,
              endpoint: null,
            })),
        ),
      mesh: this.deps.mesh.listAgents({ capability: query.capability, limit: query.limit }, service).then((list) =>
        list.agents
          .filter((agent) => !framework || String(agent.metadata.framework ?? agent.metadata.agentType ?? '').toLowerCase() === framework)
          .map((agent) => ({
            source: 'mesh' as const,
            kind: 'live-agent' as const,
            id: agent.id,
            name: agent.name,
            capabilities: agent.capabilities,
            framework: typeof agent.metadata.framework === 'string' ? agent.metadata.framework : null,
            status: agent.status ?? null,
            endpoint: agent.endpoint ?? null,
          })),
      ),
      'mcp-registry':
        framework && framework !== 'mcp'
          ? Promise.resolve([])
          : this.deps.mcpRegistry.http
              .request('POST', '/connections/discover', {
                body: { capabilities: query.capability ? [query.capability] : [], filters: {} },
                schema: McpHits,
                idempotent: true,
                ...service,
              })
              .then((answer) =>
                answer.connections.map((connection) => ({
                  source: 'mcp-registry' as const,
                  kind: 'mcp-server' as const,
                  id: connection.id,
                  name: connection.name,
                  capabilities: connection.capabilities,
                  framework: 'mcp',
                  status: connection.health.status,
                  endpoint: typeof connection.endpoint === 'string' ? connection.endpoint : JSON.stringify(connection.endpoint),
                })),
              ),
    };
    const names = Object.keys(asks) as Source[];
    const settled = await Promise.allSettled(names.map((name) => asks[name]));
    const sources: Record<string, { status: 'ok' | 'unavailable'; count: number; error?: string }> = {};
    const items: Item[] = [];
    settled.forEach((result, index) => {
      if (result.status === 'fulfilled') {
        sources[names[index]] = { status: 'ok', count: result.value.length };
        items.push(...result.value);
      } else {
        sources[names[index]] = { status: 'unavailable', count: 0, error: (result.reason as Error).message };
      }
    });
    if (settled.every((result) => result.status === 'rejected')) {
      throw new ApiError(502, 'api_error', 'upstream_error', `Discovery failed: ${names.join(', ')} unavailable`, { services: names, sources });
    }
    return { items: items.slice(0, query.limit), total: items.length, sources };
  }
}
