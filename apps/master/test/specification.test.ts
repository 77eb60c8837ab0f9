import {
  AGENT_KINDS,
  MANIFEST_KINDS,
  MANIFEST_PROTOCOLS,
  RUNTIME_CAPABILITIES,
  SECURITY_CAPABILITIES,
  SECURITY_TIERS,
  THREAT_CATEGORIES,
  validateManifest,
} from '@platform/manifest';
import request from 'supertest';
import { manifest, startMaster, type Master } from './harness';

describe('specification', () => {
  let h: Master;
  beforeAll(async () => {
    h = await startMaster();
  });
  afterAll(() => h.stop());

  it("validates a manifest with the manifest library's verdict", async () => {
    const good = manifest();
    const res = await request(h.app).post('/api/v1/specification/validate').set('Authorization', h.auth([])).send(good);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ valid: true, errors: [], warnings: [], schemaVersion: '0.4.7' });
    const bad = { ...good, kind: 'Robot', metadata: { name: 'Not_A_Label', status: 'deprecated' } };
    const invalid = await request(h.app).post('/api/v1/specification/validate').set('Authorization', h.auth([])).send(bad);
    expect(invalid.status).toBe(200);
    const { valid, errors, warnings } = validateManifest(bad);
    expect(invalid.body).toMatchObject({ valid, errors, warnings });
    expect(invalid.body.valid).toBe(false);
    expect(invalid.body.errors.map((issue: { path: string }) => issue.path)).toEqual(expect.arrayContaining(['$.kind', '$.metadata.name']));
    expect(invalid.body.warnings.map((issue: { path: string }) => issue.path)).toContain('$.metadata.deprecated_message');
  });

  it('answers 400 for a body that is not an object and 401 without a token', async () => {
    expect((await request(h.app).post('/api/v1/specification/validate').set('Authorization', h.auth([])).send(['x'])).status).toBe(400);
    expect((await request(h.app).post('/api/v1/specification/validate').send(manifest())).status).toBe(401);
  });

  it("lists the taxonomies from the manifest library's enumerations", async () => {
    const res = await request(h.app).get('/api/v1/specification/taxonomies').set('Authorization', h.auth([]));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      schemaVersion: '0.4.7',
      kinds: [...MANIFEST_KINDS],
      agentKinds: [...AGENT_KINDS],
      tiers: [...SECURITY_TIERS],
      threatCategories: [...THREAT_CATEGORIES],
      capabilities: [...SECURITY_CAPABILITIES],
      protocols: [...MANIFEST_PROTOCOLS],
    });
    expect(res.body.agentTypes).toHaveLength(15);
    expect(res.body.runtimeFrameworks.capabilities).toEqual([...RUNTIME_CAPABILITIES]);
    expect((await request(h.app).get('/api/v1/specification/taxonomies')).status).toBe(401);
  });

  it('lists capabilities, by category', async () => {
    const all = await request(h.app).get('/api/v1/specification/capabilities').set('Authorization', h.auth([]));
    expect(all.body.total).toBe(SECURITY_CAPABILITIES.length + RUNTIME_CAPABILITIES.length);
    const security = await request(h.app).get('/api/v1/specification/capabilities?category=security').set('Authorization', h.auth([]));
    expect(security.body.items.map((item: { id: string }) => item.id)).toEqual([...SECURITY_CAPABILITIES]);
    expect(security.body.items[0]).toEqual({ id: 'filesystem-read', category: 'security', manifestPath: '$.security.capabilities' });
    const runtime = await request(h.app).get('/api/v1/specification/capabilities?category=runtime').set('Authorization', h.auth([]));
    expect(runtime.body.items.map((item: { id: string }) => item.id)).toEqual([...RUNTIME_CAPABILITIES]);
    expect((await request(h.app).get('/api/v1/specification/capabilities?category=magic').set('Authorization', h.auth([]))).status).toBe(400);
  });
});
