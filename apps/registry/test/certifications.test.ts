import { cuttableProxy, eventually, testRedisUrl, uniqueName } from '@platform/testing';
import request from 'supertest';
import { goodSecurity, manifest, signed, startRegistry, type Harness } from './fixtures';
import { certificationPassed, runCertificationChecks } from '../src/certifications/certification-checks';

const checksOf = (document: object, unpublished = false) =>
  runCertificationChecks({ manifestBytes: Buffer.from(JSON.stringify(document)), format: 'json', unpublished });
const outcome = (checks: ReturnType<typeof checksOf>, id: string) => checks.find((check) => check.id === id)?.outcome;

describe('certification checks', () => {
  it('passes a signed, sandboxed, limited, active tier-3 manifest', () => {
    const checks = checksOf(signed(manifest({ name: 'a', version: '1.0.0', security: goodSecurity('tier_3_write_elevated') })));
    expect(checks.filter((check) => check.outcome === 'fail')).toEqual([]);
    expect(outcome(checks, 'signature')).toBe('pass');
    expect(certificationPassed(checks)).toBe(true);
  });

  it('warns about a missing signature below tier 3 and fails it from tier 3', () => {
    expect(outcome(checksOf(manifest({ name: 'a', version: '1.0.0', security: goodSecurity('tier_2_write_limited') })), 'signature')).toBe('warn');
    expect(outcome(checksOf(manifest({ name: 'a', version: '1.0.0', security: goodSecurity('tier_3_write_elevated') })), 'signature')).toBe('fail');
  });

  it('fails a tampered signature, a missing posture, missing sandboxing, threat model and limits, a deprecated status', () => {
    const tampered = signed(manifest({ name: 'a', version: '1.0.0', security: goodSecurity() }));
    (tampered.metadata as Record<string, unknown>).description = 'changed after signing';
    const tamperedChecks = checksOf(tampered);
    expect(outcome(tamperedChecks, 'signature')).toBe('fail');
    expect(outcome(tamperedChecks, 'manifest_valid')).toBe('fail');
    expect(outcome(checksOf(manifest({ name: 'a', version: '1.0.0' })), 'security_posture')).toBe('fail');
    expect(outcome(checksOf(manifest({ name: 'a', version: '1.0.0', security: { tier: 'tier_1_read' } })), 'security_posture')).toBe('fail');
    const unsandboxed = { ...goodSecurity('tier_4_system_admin'), sandboxing: { required: false, type: 'none' }, threat_model: [] };
    const tier4 = checksOf(signed(manifest({ name: 'a', version: '1.0.0', security: unsandboxed })));
    expect(outcome(tier4, 'sandboxing')).toBe('fail');
    expect(outcome(tier4, 'threat_model')).toBe('fail');
    expect(outcome(tier4, 'resource_limits')).toBe('fail');
    const unmitigated = { ...goodSecurity('tier_4_system_admin'), threat_model: [{ category: 'supply-chain', severity: 'critical' }] };
    expect(outcome(checksOf(signed(manifest({ name: 'a', version: '1.0.0', security: unmitigated }))), 'threat_model')).toBe('fail');
    const deprecated = checksOf(manifest({ name: 'a', version: '1.0.0', status: 'deprecated', security: goodSecurity() }));
    expect(outcome(deprecated, 'status')).toBe('fail');
    expect(outcome(checksOf(manifest({ name: 'a', version: '1.0.0', security: goodSecurity() }), true), 'published')).toBe('fail');
  });
});

describe('certification requests', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startRegistry({ worker: true });
  });
  afterAll(() => h.stop());

  const certification = async (auth: string, id: string, namespace: string) => {
    const list = await request(h.app).get(`/api/v1/certifications?namespace=${namespace}`).set('Authorization', auth);
    return list.body.items.find((item: { id: string }) => item.id === id);
  };

  it('runs end to end: request → queued job → report → certified=true in search', async () => {
    const owner = h.user();
    const ns = uniqueName('cert');
    const doc = signed(
      manifest({ namespace: ns, name: 'trusted', version: '1.0.0', description: 'certifiable agent', security: goodSecurity('tier_3_write_elevated') }),
    );
    expect((await h.publish(owner.auth, doc)).status).toBe(201);
    const requested = await request(h.app).post(`/api/v1/certifications/${ns}/trusted/request`).set('Authorization', owner.auth).send({});
    expect(requested.status).toBe(201);
    expect(requested.body).toMatchObject({ namespace: ns, name: 'trusted', version: '1.0.0', status: 'queued', requestedBy: owner.sub, checks: [] });
    const done = await eventually(async () => {
      const item = await certification(owner.auth, requested.body.id, ns);
      return item?.status === 'passed' || item?.status === 'failed' ? item : undefined;
    }, 20_000);
    expect(done.status).toBe('passed');
    expect(done.checks.map((check: { id: string }) => check.id)).toEqual(
      expect.arrayContaining(['published', 'manifest_valid', 'signature', 'security_posture', 'sandboxing', 'threat_model', 'resource_limits', 'status']),
    );
    expect(done.completedAt).toEqual(expect.any(String));
    const found = await request(h.app).get(`/api/v1/search?q=certifiable&namespace=${ns}&certified=true`).set('Authorization', owner.auth);
    expect(found.body.items.map((item: { name: string }) => item.name)).toEqual(['trusted']);
    const listed = await request(h.app).get(`/api/v1/agents?namespace=${ns}&certified=true`).set('Authorization', owner.auth);
    expect(listed.body.items[0]).toMatchObject({ certified: true, certifiedVersion: '1.0.0' });
    const version = await request(h.app).get(`/api/v1/agents/${ns}/trusted/versions/1.0.0`).set('Authorization', owner.auth);
    expect(version.body.certification).toBe('passed');

    // A new latest version is not certified until it is certified itself.
    await h
      .publish(owner.auth, signed(manifest({ namespace: ns, name: 'trusted', version: '1.1.0', security: goodSecurity('tier_3_write_elevated') })))
      .expect(201);
    const after = await request(h.app).get(`/api/v1/agents/${ns}/trusted`).set('Authorization', owner.auth);
    expect(after.body).toMatchObject({ latestVersion: '1.1.0', certified: false, certifiedVersion: '1.0.0' });
  });

  it('records a failing certification with the failed checks, and the agent stays uncertified', async () => {
    const owner = h.user();
    const ns = uniqueName('cert');
    const risky = { tier: 'tier_4_system_admin', capabilities: { required: ['process-spawn'] } };
    expect((await h.publish(owner.auth, manifest({ namespace: ns, name: 'risky', version: '2.0.0', security: risky }))).status).toBe(201);
    const requested = await request(h.app).post(`/api/v1/certifications/${ns}/risky/request`).set('Authorization', owner.auth).send({ version: '2.0.0' });
    expect(requested.status).toBe(201);
    const done = await eventually(async () => {
      const item = await certification(owner.auth, requested.body.id, ns);
      return item?.status === 'passed' || item?.status === 'failed' ? item : undefined;
    }, 20_000);
    expect(done.status).toBe('failed');
    const failed = done.checks.filter((check: { outcome: string }) => check.outcome === 'fail').map((check: { id: string }) => check.id);
    expect(failed).toEqual(expect.arrayContaining(['signature', 'sandboxing', 'threat_model', 'resource_limits']));
    const filtered = await request(h.app).get(`/api/v1/certifications?namespace=${ns}&status=failed`).set('Authorization', owner.auth);
    expect(filtered.body).toMatchObject({ total: 1, items: [{ id: requested.body.id }] });
    expect((await request(h.app).get(`/api/v1/agents?namespace=${ns}&certified=true`).set('Authorization', owner.auth)).body.total).toBe(0);
  });

  it('answers 404 for an unknown agent or version, 400 for a bad body, 401 and 403', async () => {
    const owner = h.user();
    const ns = uniqueName('cert');
    await h.publish(owner.auth, manifest({ namespace: ns, name: 'agent', version: '1.0.0' })).expect(201);
    const path = `/api/v1/certifications/${ns}/agent/request`;
    expect((await request(h.app).post(`/api/v1/certifications/${ns}/ghost/request`).set('Authorization', owner.auth).send({})).status).toBe(404);
    expect((await request(h.app).post(path).set('Authorization', owner.auth).send({ version: '3.0.0' })).status).toBe(404);
    expect((await request(h.app).post(path).set('Authorization', owner.auth).send({ version: 'latest-ish' })).status).toBe(400);
    expect((await request(h.app).post(path).set('Authorization', owner.auth).send({ level: 'gold' })).status).toBe(400);
    expect((await request(h.app).post(path).send({})).status).toBe(401);
    expect(
      (
        await request(h.app)
          .post(path)
          .set('Authorization', h.user(['registry:read']).auth)
          .send({})
      ).status,
    ).toBe(403);
    expect((await request(h.app).get('/api/v1/certifications?status=great').set('Authorization', owner.auth)).status).toBe(400);
    expect((await request(h.app).get('/api/v1/certifications')).status).toBe(401);
  });
});

describe('certification requests while the queue is down', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startRegistry({ queueClosed: true });
  });
  afterAll(() => h.stop());

  it('answers 503 and records the certification as error instead of leaving it queued forever', async () => {
    const owner = h.user();
    const ns = uniqueName('cert');
    await h.publish(owner.auth, manifest({ namespace: ns, name: 'agent', version: '1.0.0' })).expect(201);
    const res = await request(h.app).post(`/api/v1/certifications/${ns}/agent/request`).set('Authorization', owner.auth).send({});
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('service_unavailable');
    const list = await request(h.app).get(`/api/v1/certifications?namespace=${ns}`).set('Authorization', owner.auth);
    expect(list.body.items).toEqual([expect.objectContaining({ status: 'error', error: 'the job could not be queued' })]);
  });
});

const redisProxy = () => cuttableProxy(testRedisUrl, 6379);

describe('certification requests when Redis drops and comes back', () => {
  let h: Harness;
  let proxy: Awaited<ReturnType<typeof redisProxy>>;
  beforeAll(async () => {
    proxy = await redisProxy();
    h = await startRegistry({ env: { REDIS_URL: proxy.url } });
  });
  afterAll(async () => {
    await h.stop();
    await proxy.close();
  });

  it('answers 503 while Redis is unreachable and queues the next request once it is back', async () => {
    const owner = h.user();
    const ns = uniqueName('cert');
    await h.publish(owner.auth, manifest({ namespace: ns, name: 'agent', version: '1.0.0' })).expect(201);
    const certify = () => request(h.app).post(`/api/v1/certifications/${ns}/agent/request`).set('Authorization', owner.auth).send({});
    expect((await certify()).status).toBe(201);

    await proxy.cut();
    // An outage of 25 s, long enough for reconnects to back off (BullMQ alone waits 20 s between
    // attempts by then): every request meanwhile answers 503.
    const outageEnds = Date.now() + 25_000;
    while (Date.now() < outageEnds) {
      const down = await certify();
      expect(down.status).toBe(503);
      expect(down.body.error.code).toBe('service_unavailable');
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    await proxy.restore();
    const next = await certify();
    expect(next.status).toBe(201);
    // Those that answered 503 are recorded as not queued; none was queued by the reconnect.
    const list = await request(h.app).get(`/api/v1/certifications?namespace=${ns}&limit=100`).set('Authorization', owner.auth);
    const statuses = list.body.items.map((item: { status: string }) => item.status);
    expect(statuses.filter((status: string) => status !== 'error')).toHaveLength(2);
  }, 60_000);
});
