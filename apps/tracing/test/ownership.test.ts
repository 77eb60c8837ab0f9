import { testDatabaseUrl } from '@platform/testing';
import { Client } from 'pg';
import request from 'supertest';
import { startTracing, uniqueName, type Harness } from './harness';

/**
 * What the probe of issue 27 found: any `traces:read` user read any dataset. Datasets, the
 * evaluations of them and embedding projections now belong to who created them.
 */
describe('who owns what in tracing', () => {
  let h: Harness;
  const team = uniqueName('team');
  const user = ['traces:read', 'traces:write'];
  const alice = () => h.issuer.bearer(user, { sub: 'alice', teams: [{ id: team, role: 'editor' }] });
  const bob = () => h.issuer.bearer(user, { sub: 'bob' });
  const viewer = () => h.issuer.bearer(user, { sub: 'vera', teams: [{ id: team, role: 'viewer' }] });
  const admin = () => h.issuer.bearer([...user, 'traces:admin'], { sub: 'root' });

  beforeAll(async () => {
    h = await startTracing();
  });
  afterAll(() => h.stop());

  const post = (path: string, auth: string, body: object) => request(h.url).post(path).set('Authorization', auth).send(body);
  const get = (path: string, auth: string) => request(h.url).get(path).set('Authorization', auth);

  it("does not let bob read alice's dataset, list it or evaluate it: 404 as for one that does not exist", async () => {
    const name = uniqueName('private-set');
    const dataset = await post('/api/datasets', alice(), { name, data: [{ input: 'secret question', expected_output: 'secret answer' }] });
    expect(dataset.status).toBe(201);
    expect(dataset.body).toMatchObject({ owner: 'alice', team: null, version: 1 });
    const read = await get(`/api/datasets/${dataset.body.id}`, bob());
    expect(read.status).toBe(404);
    expect(read.body.error.message).toBe(`No dataset ${dataset.body.id}`);
    expect(JSON.stringify(read.body)).not.toContain('secret');
    expect((await get(`/api/datasets?name=${name}`, bob())).body).toMatchObject({ datasets: [], total: 0 });
    expect((await post('/api/evaluations', bob(), { name: 'peek', dataset_id: dataset.body.id, metrics: ['exact_match'] })).status).toBe(404);
    expect((await get(`/api/datasets/${dataset.body.id}`, alice())).body.data).toEqual([{ input: 'secret question', expected_output: 'secret answer' }]);
    expect((await get(`/api/datasets/${dataset.body.id}`, admin())).status).toBe(200);
  });

  it("keeps each owner's dataset names their own: bob posting alice's name starts his own, not her next version", async () => {
    const name = uniqueName('shared-name');
    await post('/api/datasets', alice(), { name, data: [{ input: 1 }] }).expect(201);
    const his = await post('/api/datasets', bob(), { name, data: [{ input: 2 }] });
    expect(his.body).toMatchObject({ owner: 'bob', version: 1 });
    expect((await post('/api/datasets', alice(), { name, data: [{ input: 3 }] })).body).toMatchObject({ owner: 'alice', version: 2 });
  });

  it('shares a dataset and its evaluations with a team: viewers read, only editors retry; only editors may share', async () => {
    const dataset = await post('/api/datasets', alice(), { name: uniqueName('team-set'), data: [{ input: 'a', output: 'a', expected_output: 'a' }], team });
    expect(dataset.body).toMatchObject({ owner: 'alice', team });
    expect((await get(`/api/datasets/${dataset.body.id}`, viewer())).status).toBe(200);
    const evaluation = await post('/api/evaluations', alice(), { name: 'team-eval', dataset_id: dataset.body.id, metrics: ['exact_match'], team });
    expect(evaluation.status).toBe(202);
    expect(evaluation.body).toMatchObject({ owner: 'alice', team });
    expect((await get(`/api/evaluations/${evaluation.body.id}/results`, viewer())).status).toBe(200);
    expect((await get(`/api/evaluations/${evaluation.body.id}/results`, bob())).status).toBe(404);
    expect((await post(`/api/evaluations/${evaluation.body.id}/retry`, viewer(), {})).status).toBe(403);
    expect((await post(`/api/evaluations/${evaluation.body.id}/retry`, bob(), {})).status).toBe(404);
    expect((await post(`/api/evaluations/${evaluation.body.id}/retry`, alice(), {})).status).toBe(200);
    const listed = (await get('/api/evaluations?limit=500', bob())).body.evaluations as Array<{ id: string }>;
    expect(listed.some((item) => item.id === evaluation.body.id)).toBe(false);
    expect((await post('/api/datasets', viewer(), { name: uniqueName('x'), data: [{ input: 1 }], team })).status).toBe(403);
    expect((await post('/api/datasets', bob(), { name: uniqueName('x'), data: [{ input: 1 }], team })).status).toBe(403);
    expect((await post('/api/datasets', alice(), { name: uniqueName('x'), data: [{ input: 1 }], team: 'not a team id' })).status).toBe(400);
  });

  it("does not show bob alice's projection", async () => {
    const projection = await post('/api/embeddings/reproject', alice(), { method: 'pca', project: uniqueName('nowhere') });
    expect(projection.status).toBe(202);
    expect(projection.body).toMatchObject({ owner: 'alice', team: null });
    expect((await get(`/api/embeddings/projections/${projection.body.id}`, bob())).status).toBe(404);
    expect((await get(`/api/embeddings/projections/${projection.body.id}`, alice())).status).toBe(200);
  });

  it('leaves datasets recorded before owners existed to traces:admin', async () => {
    const dataset = await post('/api/datasets', alice(), { name: uniqueName('legacy'), data: [{ input: 1 }] });
    const db = new Client({ connectionString: testDatabaseUrl });
    await db.connect();
    try {
      await db.query('UPDATE "tracing"."datasets" SET "owner" = NULL WHERE "id" = $1', [dataset.body.id]);
    } finally {
      await db.end();
    }
    expect((await get(`/api/datasets/${dataset.body.id}`, alice())).status).toBe(404);
    expect((await get(`/api/datasets/${dataset.body.id}`, admin())).body.owner).toBeNull();
  });
});
