import { eventually, uniqueName } from '@platform/testing';
import request from 'supertest';
import { manifest, startRegistry, type Harness } from './fixtures';

const today = () => new Date().toISOString().slice(0, 10);

describe('analytics', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startRegistry();
  });
  afterAll(() => h.stop());

  it('counts views, downloads and search appearances as they happen, in daily buckets', async () => {
    const owner = h.user();
    const ns = uniqueName('stats');
    const word = `st${ns.slice(-8).replace(/[^a-z0-9]/g, '')}`;
    await h.publish(owner.auth, manifest({ namespace: ns, name: 'agent', version: '1.0.0', description: word })).expect(201);
    const reader = h.user(['registry:read']).auth;
    const base = `/api/v1/agents/${ns}/agent`;
    await request(h.app).get(base).set('Authorization', reader).expect(200);
    await request(h.app).get(`${base}/versions/1.0.0`).set('Authorization', reader).expect(200);
    await request(h.app).get(`${base}/versions/latest`).set('Authorization', reader).expect(200);
    const manifestRes = await request(h.app).get(`${base}/versions/1.0.0/manifest`).set('Authorization', reader).expect(200);
    await request(h.app).get(`${base}/versions/1.0.0/manifest`).set('Authorization', reader).set('If-None-Match', manifestRes.headers.etag).expect(304);
    await request(h.app).get(`${base}/versions/latest/manifest`).set('Authorization', reader).expect(200);
    await request(h.app).get(`/api/v1/search?q=${word}`).set('Authorization', reader).expect(200);
    await request(h.app).get(`/api/v1/search?q=${word}`).set('Authorization', reader).expect(200);
    await h.parts.usage.flush();

    const report = await eventually(async () => {
      const res = await request(h.app).get(`/api/v1/analytics/${ns}/agent`).set('Authorization', owner.auth);
      return res.body.totals?.searchAppearances === 2 ? res : undefined;
    });
    expect(report.status).toBe(200);
    expect(report.body.totals).toEqual({ views: 3, downloads: 2, searchAppearances: 2 });
    expect(report.body.buckets).toHaveLength(30);
    expect(report.body.to).toBe(today());
    expect(report.body.buckets.at(-1)).toEqual({ day: today(), views: 3, downloads: 2, searchAppearances: 2 });
    expect(report.body.buckets[0]).toMatchObject({ views: 0, downloads: 0, searchAppearances: 0 });

    const range = await request(h.app).get(`/api/v1/analytics/${ns}/agent?from=2020-01-01&to=2020-01-03`).set('Authorization', owner.auth);
    expect(range.body.buckets.map((bucket: { day: string }) => bucket.day)).toEqual(['2020-01-01', '2020-01-02', '2020-01-03']);
    expect(range.body.totals).toEqual({ views: 0, downloads: 0, searchAppearances: 0 });
  });

  it('is for the owner, its team or registry:admin only (404 to others), needs a token (401), and knows the agent (404)', async () => {
    const owner = h.user();
    const ns = uniqueName('stats');
    await h.publish(owner.auth, manifest({ namespace: ns, name: 'agent', version: '1.0.0' })).expect(201);
    const path = `/api/v1/analytics/${ns}/agent`;
    const stranger = await request(h.app)
      .get(path)
      .set('Authorization', h.user(['registry:read']).auth);
    expect(stranger.status).toBe(404);
    expect(stranger.body.error).toMatchObject({ type: 'not_found_error', message: `Agent ${ns}/agent not found` });
    expect(
      (
        await request(h.app)
          .get(path)
          .set('Authorization', h.user(['registry:read', 'registry:admin']).auth)
      ).status,
    ).toBe(200);
    expect(
      (
        await request(h.app)
          .get(path)
          .set('Authorization', h.user(['*']).auth)
      ).status,
    ).toBe(200);
    expect((await request(h.app).get(path)).status).toBe(401);
    expect((await request(h.app).get(`/api/v1/analytics/${ns}/ghost`).set('Authorization', owner.auth)).status).toBe(404);
  });

  it('answers 400 for malformed or reversed dates and ranges over 366 days', async () => {
    const owner = h.user();
    const ns = uniqueName('stats');
    await h.publish(owner.auth, manifest({ namespace: ns, name: 'agent', version: '1.0.0' })).expect(201);
    const path = `/api/v1/analytics/${ns}/agent`;
    for (const query of ['from=yesterday', 'from=2026-02-30', 'from=2026-03-02&to=2026-03-01', 'from=2020-01-01&to=2026-01-01', 'extra=1']) {
      const res = await request(h.app).get(`${path}?${query}`).set('Authorization', owner.auth);
      expect([query, res.status]).toEqual([query, 400]);
    }
  });
});
