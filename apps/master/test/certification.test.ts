import { eventually, spawnService, TestIssuer, uniqueName, type ServiceProcess } from '@platform/testing';
import request from 'supertest';
import { createAgent, goodSecurity, manifest, startMaster, TEST_USER, type Master } from './harness';

/**
 * A certification requested through the master and completed by a real registry, run as its own
 * process (apps never import apps) and trusting the same TestIssuer as the master.
 */
describe('certification through the registry', () => {
  let issuer: TestIssuer;
  let registry: ServiceProcess;
  let h: Master;
  // The user who declares the test agents: certifying is a change of one's own agent.
  const certifier = () => issuer.bearer(['certification:*', 'registry:write', 'registry:read'], { sub: TEST_USER });

  beforeAll(async () => {
    issuer = await new TestIssuer().start();
    registry = await spawnService('registry', {
      env: { AUTH_URL: new URL(issuer.jwksUri).origin, AUTH_ISSUER: issuer.issuer, AUTH_AUDIENCE: issuer.audience, LOG_LEVEL: 'info' },
    });
    h = await startMaster({ REGISTRY_URL: registry.url }, issuer);
  }, 90_000);
  afterAll(async () => {
    await h?.stop();
    await registry?.stop();
    await issuer.stop();
  });

  const poll = (id: string) =>
    eventually(
      async () => {
        const res = await request(h.app).get(`/api/v1/certification/${id}`).set('Authorization', certifier());
        return ['passed', 'failed', 'error'].includes(res.body.status) ? res : undefined;
      },
      30_000,
      200,
    );

  it('publishes the manifest to the registry, which certifies it; the master mirrors the report and the agent state', async () => {
    const agent = await createAgent(h, manifest({ namespace: uniqueName('cert'), security: goodSecurity() }));
    const requested = await request(h.app).post('/api/v1/certification/request').set('Authorization', certifier()).send({ agentId: agent.id });
    expect(requested.status).toBe(202);
    expect(requested.body).toMatchObject({
      agentId: agent.id,
      namespace: agent.namespace,
      name: agent.name,
      version: '1.0.0',
      status: 'queued',
      requestedBy: TEST_USER,
      owner: TEST_USER,
    });
    const done = await poll(requested.body.id);
    expect(done.body).toMatchObject({ id: requested.body.id, status: 'passed', completedAt: expect.any(String) });
    expect(done.body.checks.map((check: { id: string }) => check.id)).toEqual(
      expect.arrayContaining(['published', 'manifest_valid', 'security_posture', 'resource_limits']),
    );
    const stored = await request(h.app)
      .get(`/api/v1/agents/${agent.id}`)
      .set('Authorization', h.auth(['agents:read']));
    expect(stored.body.certification).toEqual({ id: requested.body.id, status: 'passed' });
    const events = await request(h.app)
      .get('/api/v1/monitoring/events?type=certification.*&limit=500')
      .set('Authorization', h.auth(['monitoring:read']));
    const mine = events.body.items.filter((event: { subject: string }) => event.subject === requested.body.id);
    expect(mine.map((event: { type: string }) => event.type).sort()).toEqual(['certification.completed', 'certification.requested']);
    // The registry's own record is the same certification: one engine on the platform.
    const inRegistry = await request(registry.url)
      .get(`/api/v1/certifications?namespace=${agent.namespace}&name=${agent.name}`)
      .set('Authorization', certifier());
    expect(inRegistry.body.items.map((item: { id: string }) => item.id)).toEqual([requested.body.id]);
  });

  it('reports the failed checks of an elevated agent without a signature, and certifies a version already published', async () => {
    const body = manifest({ namespace: uniqueName('cert'), security: { ...goodSecurity(), tier: 'tier_3_write_elevated' } });
    const agent = await createAgent(h, body);
    expect((await request(registry.url).post('/api/v1/agents').set('Authorization', certifier()).send(body)).status).toBe(201);
    const requested = await request(h.app)
      .post('/api/v1/certification/request')
      .set('Authorization', certifier())
      .send({ agentId: agent.id, version: '1.0.0' });
    expect(requested.status).toBe(202);
    const done = await poll(requested.body.id);
    expect(done.body.status).toBe('failed');
    expect(done.body.checks.find((check: { id: string }) => check.id === 'signature')).toMatchObject({ outcome: 'fail' });
  });

  it("passes on the registry's refusal of a caller without registry:write as 403", async () => {
    const agent = await createAgent(h, manifest({ namespace: uniqueName('cert'), security: goodSecurity() }));
    const res = await request(h.app)
      .post('/api/v1/certification/request')
      .set('Authorization', issuer.bearer(['certification:write'], { sub: TEST_USER }))
      .send({ agentId: agent.id });
    expect(res.status).toBe(403);
    expect(res.body.error.details.dependency).toBe('registry');
  });

  it('refuses an agent without namespace or version, an unknown version or agent, and bad bodies', async () => {
    const loose = manifest();
    delete (loose.metadata as Record<string, unknown>).version;
    const agent = await createAgent(h, loose);
    const res = await request(h.app).post('/api/v1/certification/request').set('Authorization', certifier()).send({ agentId: agent.id });
    expect(res.status).toBe(400);
    expect(res.body.error.details.issues.map((issue: { path: string }) => issue.path)).toEqual(['$.metadata.namespace', '$.metadata.version']);
    const versioned = await createAgent(h, manifest({ namespace: uniqueName('cert') }));
    expect(
      (await request(h.app).post('/api/v1/certification/request').set('Authorization', certifier()).send({ agentId: versioned.id, version: '9.9.9' })).status,
    ).toBe(400);
    expect(
      (await request(h.app).post('/api/v1/certification/request').set('Authorization', certifier()).send({ agentId: '00000000-0000-4000-8000-000000000000' }))
        .status,
    ).toBe(404);
    expect(
      (await request(h.app).post('/api/v1/certification/request').set('Authorization', certifier()).send({ agentId: versioned.id, extra: 1 })).status,
    ).toBe(400);
    expect((await request(h.app).get('/api/v1/certification/no-such-certification').set('Authorization', certifier())).status).toBe(404);
    expect((await request(h.app).get('/api/v1/certification/bad%20id').set('Authorization', certifier())).status).toBe(400);
  });

  it('needs the certification permissions', async () => {
    expect((await request(h.app).post('/api/v1/certification/request').send({})).status).toBe(401);
    expect(
      (
        await request(h.app)
          .post('/api/v1/certification/request')
          .set('Authorization', issuer.bearer(['certification:read']))
          .send({ agentId: '00000000-0000-4000-8000-000000000000' })
      ).status,
    ).toBe(403);
    expect(
      (
        await request(h.app)
          .get('/api/v1/certification/abc')
          .set('Authorization', issuer.bearer(['agents:read']))
      ).status,
    ).toBe(403);
  });
});

describe('certification with the registry down', () => {
  let h: Master;
  beforeAll(async () => {
    h = await startMaster();
  });
  afterAll(() => h.stop());

  it('answers 503 naming the registry', async () => {
    const agent = await createAgent(h, manifest({ namespace: uniqueName('cert') }));
    const res = await request(h.app)
      .post('/api/v1/certification/request')
      .set('Authorization', h.auth(['certification:write']))
      .send({ agentId: agent.id });
    expect(res.status).toBe(503);
    expect(res.body.error).toMatchObject({ code: 'service_unavailable', details: { dependency: 'registry' } });
  });
});
