import type { Db } from '../database';
import type { Peer, Prisma } from '../generated/prisma/client';
import type { EventsRepository } from '../events/events.repository';
import type { ManifestFacts } from '../agents/manifest-facts';

export type PeerRow = Peer;

export interface MirroredAgent {
  remoteId: string;
  facts: ManifestFacts;
  manifest: object;
}

/** The only code that touches `master.Peer` and the mirrored rows of `master.Agent`. */
export class FederationRepository {
  constructor(
    private readonly db: Db,
    private readonly events: EventsRepository,
  ) {}

  list(): Promise<PeerRow[]> {
    return this.db.peer.findMany({ orderBy: { name: 'asc' } });
  }

  find(id: string): Promise<PeerRow | null> {
    return this.db.peer.findUnique({ where: { id } });
  }

  findByNameOrUrl(name: string, url: string): Promise<PeerRow | null> {
    return this.db.peer.findFirst({ where: { OR: [{ name }, { url }] } });
  }

  create(data: Omit<Prisma.PeerCreateInput, 'agents'>): Promise<PeerRow> {
    return this.db.$transaction(async (tx) => {
      const peer = await tx.peer.create({ data });
      await this.events.record({ type: 'federation.joined', subject: peer.id, actor: data.joinedBy, data: { name: peer.name, url: peer.url } }, tx);
      return peer;
    });
  }

  /** Replaces the peer's mirrored catalog with `agents` in one transaction. */
  replaceCatalog(peer: PeerRow, agents: MirroredAgent[]): Promise<{ upserted: number; removed: number }> {
    return this.db.$transaction(
      async (tx) => {
        const removed = await tx.agent.deleteMany({ where: { peerId: peer.id, remoteId: { notIn: agents.map((agent) => agent.remoteId) } } });
        for (const agent of agents) {
          const data = {
            ...agent.facts,
            origin: peer.url,
            visibility: 'public',
            manifest: agent.manifest as Prisma.InputJsonValue,
            createdBy: `federation:${peer.name}`,
          };
          await tx.agent.upsert({
            where: { peerId_remoteId: { peerId: peer.id, remoteId: agent.remoteId } },
            create: { ...data, peerId: peer.id, remoteId: agent.remoteId },
            update: data,
          });
        }
        await tx.peer.update({ where: { id: peer.id }, data: { state: 'active', lastSyncAt: new Date(), lastError: null, agentCount: agents.length } });
        await this.events.record({ type: 'federation.synced', subject: peer.id, data: { name: peer.name, agents: agents.length, removed: removed.count } }, tx);
        return { upserted: agents.length, removed: removed.count };
      },
      { timeout: 60_000 },
    );
  }

  async syncFailed(peer: PeerRow, state: 'unreachable' | 'unauthorized', error: string): Promise<void> {
    await this.db.$transaction(async (tx) => {
      await tx.peer.update({ where: { id: peer.id }, data: { state, lastError: error } });
      await this.events.record({ type: 'federation.sync_failed', subject: peer.id, data: { name: peer.name, state, error } }, tx);
    });
  }
}
