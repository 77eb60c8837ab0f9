import type { Owned } from '@platform/http';
import type { RoutableAgent } from '../agents/agents.repository';
import type { LoadTracker } from './load';

export interface RoutingSnapshot {
  version: number;
  builtAt: Date | null;
  capabilities: Map<string, string[]>;
  statuses: Map<string, string>;
  /** Who owns each routable agent (lists filter by it; a message records its recipient's). */
  owners: Map<string, Owned>;
}

/**
 * Capability → routable agents, built from Postgres and cached until a health change invalidates
 * it. Choosing an agent is power of two choices over the live cost of each (LoadTracker): two
 * candidates at random, the cheaper wins, so load spreads without every node herding to one agent.
 */
export class RoutingTable {
  private snapshot?: RoutingSnapshot;
  private building?: Promise<RoutingSnapshot>;
  private version = 0;
  hits = 0;
  rebuilds = 0;

  constructor(
    private readonly load: () => Promise<RoutableAgent[]>,
    readonly tracker: LoadTracker,
    private readonly random: () => number = Math.random,
  ) {}

  get currentVersion(): number {
    return this.version;
  }

  get builtAt(): Date | null {
    return this.snapshot?.builtAt ?? null;
  }

  /** Drops the cache; the next lookup rebuilds it. */
  invalidate(): void {
    this.version += 1;
    this.snapshot = undefined;
    this.building = undefined;
  }

  async current(): Promise<RoutingSnapshot> {
    if (this.snapshot) {
      this.hits += 1;
      return this.snapshot;
    }
    return (this.building ??= this.build());
  }

  async rebuild(): Promise<RoutingSnapshot> {
    this.invalidate();
    return this.current();
  }

  private async build(): Promise<RoutingSnapshot> {
    const version = this.version;
    const agents = await this.load();
    const capabilities = new Map<string, string[]>();
    const statuses = new Map<string, string>();
    const owners = new Map<string, Owned>();
    for (const agent of agents) {
      statuses.set(agent.id, agent.status);
      owners.set(agent.id, { owner: agent.owner, team: agent.team });
      this.tracker.seed(agent.id, agent.latencyMs);
      for (const capability of agent.capabilities) {
        const list = capabilities.get(capability);
        if (list) list.push(agent.id);
        else capabilities.set(capability, [agent.id]);
      }
    }
    const snapshot: RoutingSnapshot = { version, builtAt: new Date(), capabilities, statuses, owners };
    this.rebuilds += 1;
    // An invalidation while building makes this snapshot stale: answer with it, but do not keep it.
    if (version === this.version) {
      this.snapshot = snapshot;
      this.building = undefined;
    }
    return snapshot;
  }

  /** The best of two random candidates for a capability, or undefined when none is routable. */
  async choose(capability: string): Promise<string | undefined> {
    const snapshot = await this.current();
    return this.pick(snapshot.capabilities.get(capability) ?? []);
  }

  pick(candidates: readonly string[]): string | undefined {
    if (candidates.length === 0) return undefined;
    if (candidates.length === 1) return candidates[0];
    const first = Math.floor(this.random() * candidates.length);
    let second = Math.floor(this.random() * (candidates.length - 1));
    if (second >= first) second += 1;
    const a = candidates[first];
    const b = candidates[second];
    return this.tracker.cost(b) < this.tracker.cost(a) ? b : a;
  }

  /** The owner and team of a routable agent, from the current snapshot (undefined: not known here). */
  ownerOf(agentId: string): Owned | undefined {
    return this.snapshot?.owners.get(agentId);
  }

  isRoutable(agentId: string): boolean | undefined {
    return this.snapshot ? this.snapshot.statuses.has(agentId) : undefined;
  }
}
