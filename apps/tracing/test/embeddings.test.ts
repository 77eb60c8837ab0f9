import { eventually } from '@platform/testing';
import request from 'supertest';
import { INGEST_KEY, otlpJson, startTracing, uniqueName, type Harness } from './harness';

const READ = ['traces:read'];
const WRITE = ['traces:write', 'traces:read'];

describe('embeddings', () => {
  let h: Harness;
  const project = uniqueName('emb');
  const get = (path: string) => request(h.url).get(path).set('Authorization', h.bearer(READ));
  const reproject = (body: object) => request(h.url).post('/api/embeddings/reproject').set('Authorization', h.bearer(WRITE)).send(body);
  const follow = (url: string) =>
    eventually(async () => {
      const res = await get(url);
      return ['completed', 'failed'].includes(res.body.status) ? res.body : undefined;
    }, 20_000);

  beforeAll(async () => {
    h = await startTracing();
    // 12 spans carrying an 8-dimension vector each (two clusters), and 2 carrying a 4-dimension one of another model.
    const spans = Array.from({ length: 12 }, (_, i) => ({
      name: 'embed',
      attributes: {
        'embedding.model_name': 'tiny-8',
        'embedding.embeddings.0.embedding.vector': Array.from({ length: 8 }, (_, d) => (i < 6 ? 1 : -1) * (d + 1) + i * 0.01),
        'embedding.embeddings.0.embedding.text': `text ${i}`,
      },
    }));
    const small = Array.from({ length: 2 }, (_, i) => ({
      name: 'embed',
      attributes: { 'embedding.model_name': 'tiny-4', 'embedding.embeddings.0.embedding.vector': [i, 1, 2, 3] },
    }));
    await request(h.url)
      .post('/v1/traces')
      .set('x-api-key', INGEST_KEY)
      .set('Content-Type', 'application/json')
      .send(JSON.stringify(otlpJson(project, [...spans, ...small])))
      .expect(200);
  });
  afterAll(() => h.stop());

  it('keeps the vectors spans carry and counts them per project, dimension and model', async () => {
    const count = await get(`/api/embeddings/count?project=${project}`);
    expect(count.status).toBe(200);
    expect(count.body).toEqual({ count: 14, projects: [{ project, count: 14 }] });
    const dims = await get(`/api/embeddings/dimensions?project=${project}`);
    expect(dims.body.dimensions).toEqual([
      { dimensions: 8, model: 'tiny-8', count: 12 },
      { dimensions: 4, model: 'tiny-4', count: 2 },
    ]);
    expect((await get(`/api/embeddings/count?project=${project}&model=tiny-4`)).body.count).toBe(2);
  });

  it('reprojects with PCA to 3-D and UMAP to 2-D as jobs, storing one point per vector', async () => {
    const pca = await reproject({ method: 'pca', dimensions: 3, project });
    expect(pca.status).toBe(202);
    expect(pca.body).toMatchObject({ status: 'queued', method: 'pca', dimensions: 3, status_url: `/api/embeddings/projections/${pca.body.id}` });
    const pcaDone = await follow(pca.body.status_url);
    expect(pcaDone).toMatchObject({ status: 'completed', count: 12, vector_size: 8 });
    expect(pcaDone.points).toHaveLength(12);
    for (const point of pcaDone.points) expect(point.coordinates).toHaveLength(3);
    // Two clusters stay apart along the first principal component.
    const first = pcaDone.points.map((point: { coordinates: number[] }) => Math.sign(point.coordinates[0]));
    expect(new Set(first.slice(0, 6)).size).toBe(1);
    expect(first[0]).not.toBe(first[11]);

    const umap = await reproject({ method: 'umap', dimensions: 2, project, model: 'tiny-8' });
    const umapDone = await follow(umap.body.status_url);
    expect(umapDone).toMatchObject({ status: 'completed', count: 12 });
    for (const point of umapDone.points) expect(point.coordinates).toHaveLength(2);
  });

  it('fails a projection that cannot be computed, and refuses bad input', async () => {
    const few = await reproject({ method: 'pca', dimensions: 2, project, model: 'tiny-4' });
    const failed = await follow(few.body.status_url);
    expect(failed).toMatchObject({ status: 'failed', error: expect.stringMatching(/at least 3/) });
    for (const body of [{ dimensions: 4 }, { method: 'tsne' }, { limit: 1 }, { extra: true }]) {
      expect([body, (await reproject(body)).status]).toEqual([body, 400]);
    }
    expect((await request(h.url).post('/api/embeddings/reproject').set('Authorization', h.bearer(READ)).send({})).status).toBe(403);
    expect((await request(h.url).get('/api/embeddings/count')).status).toBe(401);
    expect((await get('/api/embeddings/projections/00000000-0000-4000-8000-000000000000')).status).toBe(404);
  });
});
