import type { LocalModelsClient } from '@platform/clients';
import { badRequest, inReadScope, type Caller, type ReadScope } from '@platform/http';
import { rules } from '../access/ownership';
import type { VectorStore } from '../components/component';
import { NodeError } from '../components/node-error';
import type { CollectionsRepository } from './collections.repository';

export function cosine(a: number[], b: number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/**
 * Vector collections in Postgres, searched by an exact cosine scan (this server has no pgvector).
 * A collection holds at most `maxDocuments` documents, which bounds a scan's time and memory.
 */
export class CollectionsService {
  constructor(
    private readonly repository: CollectionsRepository,
    private readonly localModels: LocalModelsClient,
    private readonly embeddingModel: string,
    private readonly maxDocuments: number,
  ) {}

  /**
   * Adds or replaces documents. A new collection becomes the caller's (shared with `team` when
   * given); an existing one takes documents only from who may change it (404 to who may not read it).
   */
  async upsert(
    collection: string,
    request: { team?: string; model?: string; documents: Array<{ id: string; text: string; vector?: number[]; metadata: Record<string, unknown> }> },
    caller: Caller,
    bearer?: string,
  ) {
    const current = await this.repository.owner(collection);
    if (current) rules.collection.writable(caller, current, collection);
    const claim = current ? undefined : rules.collection.ownerFor(caller, request.team);
    const ids = new Set(request.documents.map((document) => document.id));
    if (ids.size !== request.documents.length)
      throw badRequest('Document ids repeat', { issues: [{ path: 'body.documents', message: 'Each id once', code: 'duplicate' }] });
    const missing = request.documents.filter((document) => !document.vector);
    if (missing.some((document) => !document.text))
      throw badRequest('A document needs a vector or a text to embed', {
        issues: [{ path: 'body.documents', message: 'vector or text required', code: 'invalid_value' }],
      });
    const embedded = missing.length
      ? (
          await this.localModels.embed(
            request.model ?? this.embeddingModel,
            missing.map((document) => document.text),
            { bearer },
          )
        ).embeddings
      : [];
    const vectors = new Map(missing.map((document, index) => [document.id, embedded[index]]));
    const documents = request.documents.map((document) => ({
      id: document.id,
      text: document.text,
      metadata: document.metadata,
      vector: document.vector ?? vectors.get(document.id) ?? [],
    }));
    const dimensions = new Set(documents.map((document) => document.vector.length));
    if (dimensions.size > 1)
      throw badRequest('Every vector of a collection has the same length', {
        issues: [{ path: 'body.documents', message: `lengths ${[...dimensions].join(', ')}`, code: 'invalid_value' }],
      });
    const before = await this.repository.count(collection);
    const existing = await this.repository.existing(collection, [...ids]);
    if (before + ids.size - existing.length > this.maxDocuments)
      throw badRequest(`A collection holds at most ${this.maxDocuments} documents (WORKFLOW_ENGINE_VECTOR_MAX_DOCUMENTS)`, {
        issues: [{ path: 'body.documents', message: 'collection full', code: 'too_big' }],
      });
    // Two callers creating the same collection at once: the first claim wins, the other is checked against it.
    const owned = current ?? rules.collection.writable(caller, await this.repository.claim(collection, claim!), collection);
    await this.repository.upsert(collection, documents);
    return { collection, upserted: documents.length, total: await this.repository.count(collection), owner: owned.owner, team: owned.team };
  }

  /**
   * The collections a run may search: those its starter could read when it started (`scope`); a run
   * recorded before owners were (no scope) reaches only collections from that time too.
   */
  readableBy(scope: ReadScope | null): VectorStore {
    return {
      search: async (collection, vector, topK, minScore) => {
        const owned = await this.repository.owner(collection);
        if (!owned || !(scope ? inReadScope(scope, owned) : owned.owner === null))
          throw new NodeError('NOT_FOUND', `No vector collection ${collection}`, false);
        return this.search(collection, vector, topK, minScore);
      },
    };
  }

  private async search(collection: string, vector: number[], topK: number, minScore: number) {
    const rows = await this.repository.all(collection, this.maxDocuments);
    if (!rows.length) throw new NodeError('NOT_FOUND', `No vector collection ${collection}`, false);
    return rows
      .filter((row) => row.vector.length === vector.length)
      .map((row) => ({ id: row.docId, score: cosine(row.vector, vector), text: row.text, metadata: row.metadata }))
      .filter((row) => row.score >= minScore)
      .sort((a, b) => b.score - a.score)
      .slice(0, topK);
  }
}
