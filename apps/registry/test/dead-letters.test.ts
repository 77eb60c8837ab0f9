import request from 'supertest';
import { startRegistry, type Harness } from './fixtures';

/** The certification queue's dead letters, as an operator reaches them (service-kit's routes). */
describe('certification dead letters', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startRegistry();
  });
  afterAll(() => h.stop());

  it('lists the certification queue for admins and refuses everyone else', async () => {
    const admin = h.user(['registry:admin']).auth;
    const queues = await request(h.app).get('/api/v1/admin/queues').set('Authorization', admin);
    expect(queues.status).toBe(200);
    expect(queues.body.queues).toEqual([{ name: 'registry.certifications', counts: expect.objectContaining({ failed: expect.any(Number) }) }]);
    const failed = await request(h.app).get('/api/v1/admin/queues/registry.certifications/failed?limit=5').set('Authorization', admin);
    expect(failed.status).toBe(200);
    expect(failed.body).toMatchObject({ limit: 5, offset: 0, total: expect.any(Number) });
    expect(
      (
        await request(h.app)
          .get('/api/v1/admin/queues')
          .set('Authorization', h.user(['registry:write']).auth)
      ).status,
    ).toBe(403);
    expect((await request(h.app).get('/api/v1/admin/queues')).status).toBe(401);
  });
});
