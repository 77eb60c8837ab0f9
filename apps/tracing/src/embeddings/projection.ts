import { PCA } from 'ml-pca';
import { UMAP } from 'umap-js';

/** A small seeded generator, so the same vectors project to the same coordinates. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Projects vectors to 2 or 3 dimensions with UMAP (umap-js) or PCA (ml-pca). UMAP needs more
 * points than neighbours; with very few points it uses PCA's answer instead. UMAP's epochs run one
 * timer turn each (`fitAsync`), so a projection running as a job in the service's process does not
 * hold up the requests it serves meanwhile (seconds for a few thousand vectors).
 */
export async function project(vectors: number[][], method: 'umap' | 'pca', dimensions: 2 | 3): Promise<{ coordinates: number[][]; method: 'umap' | 'pca' }> {
  if (vectors.length < 3) throw new Error('at least 3 vectors are needed for a projection');
  if (vectors[0].length < dimensions) throw new Error(`vectors of ${vectors[0].length} dimensions cannot be projected to ${dimensions}`);
  if (method === 'umap' && vectors.length > dimensions + 2) {
    const umap = new UMAP({ nComponents: dimensions, nNeighbors: Math.max(2, Math.min(15, vectors.length - 1)), minDist: 0.1, random: seeded(42) });
    return { coordinates: await umap.fitAsync(vectors), method: 'umap' };
  }
  const pca = new PCA(vectors);
  const projected = pca.predict(vectors, { nComponents: Math.min(dimensions, pca.getExplainedVariance().length) }).to2DArray();
  // Fewer components than asked (rank-deficient data): pad with zeros.
  return { coordinates: projected.map((row) => [...row, ...Array(dimensions - row.length).fill(0)]), method: 'pca' };
}
