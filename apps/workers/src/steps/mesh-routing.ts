import { UpstreamError, type MeshClient } from '@platform/clients';
import { StepFailure } from './step-context';

/** An agent the mesh routed a task to. */
export interface RoutedAgent {
  agentId: string;
  endpoint: string;
}

type Entry = { agent_id: string; outstanding: number; latency_ewma_ms: number; status: string; capability: string };

/**
 * Resolves an agent step's `agent` through the mesh's routing (MESH_URL): the name is an agent id
 * or a capability; among the routable agents it names (healthy, not ejected), the one with the
 * fewest outstanding requests, then the lowest latency, gets the task at the endpoint it registered.
 * A mesh that cannot be reached (or fails) is a retryable step failure naming the mesh.
 */
export class MeshRouting {
  constructor(private readonly mesh: MeshClient) {}

  async resolve(agent: string, signal: AbortSignal): Promise<RoutedAgent> {
    try {
      const table = await this.mesh.routingTable({ signal });
      const byCapability = (table.capabilities[agent] ?? []).map((entry) => ({ ...entry, capability: agent }));
      const candidates: Entry[] =
        byCapability.length > 0
          ? byCapability
          : Object.entries(table.capabilities).flatMap(([capability, entries]) =>
              entries.filter((entry) => entry.agent_id === agent).map((entry) => ({ ...entry, capability })),
            );
      if (candidates.length === 0) throw new StepFailure(`the mesh knows no routable agent or capability "${agent}"`);
      const best = candidates.reduce((a, b) => (rank(b) < rank(a) ? b : a));
      const endpoint = await this.endpointOf(best.agent_id, best.capability, signal);
      if (!endpoint) throw new StepFailure(`agent "${best.agent_id}" registered no endpoint with the mesh`, undefined, false);
      return { agentId: best.agent_id, endpoint };
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      if (error instanceof UpstreamError) throw new StepFailure(`mesh routing failed: ${error.message}`, undefined, error.retryable);
      throw error;
    }
  }

  /** The endpoint an agent registered, found among the agents of one of its capabilities. */
  private async endpointOf(agentId: string, capability: string, signal: AbortSignal): Promise<string | null | undefined> {
    const limit = 500;
    for (let offset = 0; offset < 100_000; offset += limit) {
      const page = await this.mesh.listAgents({ capability, limit, offset }, { signal });
      const found = page.agents.find((item) => item.id === agentId);
      if (found) return found.endpoint ?? null;
      if (page.agents.length < limit) break;
    }
    throw new StepFailure(`the mesh routes to agent "${agentId}" but does not list it`);
  }
}

/** Passing before warning, then fewer outstanding requests, then lower latency. */
const rank = (entry: Entry) => (entry.status === 'passing' ? 0 : 1) * 1e12 + entry.outstanding * 1e6 + entry.latency_ewma_ms;
