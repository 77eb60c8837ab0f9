import type { Db } from '../database';

export interface VectorRow {
  docId: string;
  text: string;
  vector: number[];
  metadata: unknown;
}

export interface CollectionOwner {
  name: string;
  owner: string | null;
  team: string | null;
}

export class CollectionsRepository {
  constructor(private readonly db: Db) {}

  owner(collection: string): Promise<CollectionOwner | null> {
    return this.db.vectorCollection.findUnique({ where: { name: collection }, select: { name: true, owner: true, team: true } });
  }

  /** Records the owner of a new collection; a collection someone else created first keeps theirs (returned). */
  async claim(collection: string, owned: { owner: string; team: string | null }): Promise<CollectionOwner> {
    await this.db.vectorCollection.createMany({ data: [{ name: collection, ...owned }], skipDuplicates: true });
    return (await this.owner(collection)) as CollectionOwner;
  }

  count(collection: string): Promise<number> {
    return this.db.vectorDocument.count({ where: { collection } });
  }

  async upsert(collection: string, documents: Array<{ id: string; text: string; vector: number[]; metadata: object }>): Promise<void> {
    await this.db.$transaction(
      documents.map((document) =>
        this.db.vectorDocument.upsert({
          where: { collection_docId: { collection, docId: document.id } },
          create: { collection, docId: document.id, text: document.text, vector: document.vector, metadata: document.metadata },
          update: { text: document.text, vector: document.vector, metadata: document.metadata },
        }),
      ),
    );
  }

  existing(collection: string, ids: string[]): Promise<Array<{ docId: string }>> {
    return this.db.vectorDocument.findMany({ where: { collection, docId: { in: ids } }, select: { docId: true } });
  }

  all(collection: string, limit: number): Promise<VectorRow[]> {
    return this.db.vectorDocument.findMany({ where: { collection }, select: { docId: true, text: true, vector: true, metadata: true }, take: limit });
  }
}
