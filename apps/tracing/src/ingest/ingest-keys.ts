import { createHash, timingSafeEqual } from 'node:crypto';

const sha256 = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/**
 * Static ingestion keys (TRACING_INGEST_KEYS): only their SHA-256 digests are kept in memory, and a
 * presented key is hashed and compared in constant time with each.
 */
export class IngestKeys {
  private readonly digests: Buffer[];

  constructor(keys: readonly string[]) {
    this.digests = keys.filter((key) => key.length > 0).map(sha256);
  }

  get size(): number {
    return this.digests.length;
  }

  matches(presented: string | undefined): boolean {
    if (!presented || presented.length > 1024) return false;
    const digest = sha256(presented);
    let found = false;
    for (const known of this.digests) found = timingSafeEqual(known, digest) || found;
    return found;
  }
}
