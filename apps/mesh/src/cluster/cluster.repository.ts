import type { Db } from '../database';
import type { ClusterNode } from '../generated/prisma/client';

export type ClusterNodeRow = ClusterNode;

/** A leader-only write carried a fencing token lower than one already used: its leader was deposed. */
export class FencingError extends Error {
  override name = 'FencingError';
  constructor(
    readonly token: number,
    readonly current: number | null,
  ) {
    super(`fencing token ${token} is stale (current ${current ?? 'unknown'})`);
  }
}

export class ClusterRepository {
  constructor(
    private readonly db: Db,
    /** The cluster (MESH_CLUSTER): its nodes, and the name of its fence. */
    private readonly cluster: string,
  ) {}

  /** Whether a node of this cluster has not been seen since `before` (dead, or cut off). */
  async hasStale(before: Date): Promise<boolean> {
    return (await this.db.clusterNode.count({ where: { cluster: this.cluster, lastSeenAt: { lt: before } } })) > 0;
  }

  async upsertNode(node: { id: string; host: string; httpPort: number; grpcPort: number }): Promise<void> {
    const now = new Date();
    await this.db.clusterNode.upsert({
      where: { id: node.id },
      create: { ...node, cluster: this.cluster, startedAt: now, lastSeenAt: now },
      update: { ...node, cluster: this.cluster, lastSeenAt: now },
    });
  }

  async touch(id: string): Promise<void> {
    await this.db.clusterNode.updateMany({ where: { id }, data: { lastSeenAt: new Date() } });
  }

  async removeNode(id: string): Promise<void> {
    await this.db.clusterNode.deleteMany({ where: { id } });
  }

  nodes(): Promise<ClusterNodeRow[]> {
    return this.db.clusterNode.findMany({ where: { cluster: this.cluster }, orderBy: { startedAt: 'asc' } });
  }

  async currentFence(): Promise<number | null> {
    const row = await this.db.clusterFence.findUnique({ where: { name: this.cluster } });
    return row ? Number(row.token) : null;
  }

  /**
   * Runs a leader-only write with its fencing token, in one transaction: the token is recorded only
   * if no higher one was, so a deposed leader's late write is refused (FencingError) and changes nothing.
   */
  async fenced<T>(token: number, holder: string, write: (tx: FencedWrites) => Promise<T>): Promise<T> {
    return this.db.$transaction(async (tx) => {
      const rows = await tx.$queryRaw<Array<{ token: bigint }>>`
        INSERT INTO mesh.cluster_fences (name, token, holder, "updatedAt") VALUES (${this.cluster}, ${BigInt(token)}, ${holder}, now())
        ON CONFLICT (name) DO UPDATE SET token = EXCLUDED.token, holder = EXCLUDED.holder, "updatedAt" = now()
        WHERE mesh.cluster_fences.token <= EXCLUDED.token
        RETURNING token`;
      if (rows.length === 0) {
        const current = await tx.clusterFence.findUnique({ where: { name: this.cluster } });
        throw new FencingError(token, current ? Number(current.token) : null);
      }
      return write(new FencedWrites(tx as unknown as Db, this.cluster));
    });
  }
}

/** The writes only a leader makes, inside a fenced transaction. */
export class FencedWrites {
  constructor(
    private readonly tx: Db,
    private readonly cluster: string,
  ) {}

  /**
   * Removes the cluster's nodes not seen since `before` and moves their agents to live nodes, as
   * well as agents whose node is gone without a trace (`known` lists every node id of any cluster).
   */
  async reconcile(before: Date, options: { strays?: boolean } = {}): Promise<{ removed: string[]; reassigned: number }> {
    const stale = await this.tx.clusterNode.findMany({ where: { cluster: this.cluster, lastSeenAt: { lt: before } }, select: { id: true } });
    const removed = stale.map((node) => node.id);
    if (removed.length > 0) await this.tx.clusterNode.deleteMany({ where: { id: { in: removed } } });
    const live = (await this.tx.clusterNode.findMany({ where: { cluster: this.cluster }, select: { id: true }, orderBy: { id: 'asc' } })).map(
      (node) => node.id,
    );
    if (live.length === 0) return { removed, reassigned: 0 };
    const known = (await this.tx.clusterNode.findMany({ select: { id: true } })).map((node) => node.id);
    // `strays: false` (the leader's own reconcile) takes over only the agents of this cluster's dead nodes.
    const orphans = await this.tx.agent.findMany({
      where: { OR: [{ nodeId: { in: removed } }, ...(options.strays === false ? [] : [{ nodeId: { notIn: known } }, { nodeId: null }])] },
      select: { id: true },
      orderBy: { id: 'asc' },
    });
    const byNode = new Map<string, string[]>();
    orphans.forEach((agent, index) => {
      const node = live[index % live.length];
      byNode.set(node, [...(byNode.get(node) ?? []), agent.id]);
    });
    for (const [nodeId, ids] of byNode) await this.tx.agent.updateMany({ where: { id: { in: ids } }, data: { nodeId } });
    return { removed, reassigned: orphans.length };
  }

  /** Records a leader-only setting change (used to prove the fence in tests and by operators). */
  async mark(key: string, value: Record<string, unknown>): Promise<void> {
    await this.tx.setting.upsert({ where: { key }, create: { key, value: value as object }, update: { value: value as object, updatedAt: new Date() } });
  }
}
