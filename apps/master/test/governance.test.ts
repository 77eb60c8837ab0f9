import { startService } from '@platform/service-kit';
import { testDatabaseUrl, testRedisUrl, uniqueName } from '@platform/testing';
import request from 'supertest';
import { masterService } from '../src/service';
import { createAgent, goodSecurity, manifest, startMaster, type Master } from './harness';

const OPERATOR_POLICIES = [
  {
    id: 'acme.description-required',
    name: 'Agents describe themselves',
    rule: { '!!': [{ var: 'metadata.description' }] },
    path: '$.metadata.description',
    message: 'every agent needs metadata.description',
  },
  {
    id: 'acme.gpu-warning',
    name: 'GPU use is reviewed',
    severity: 'warning',
    appliesTo: { in: ['gpu', { var: ['security.capabilities.required', []] }] },
    rule: false,
    path: '$.security.capabilities.required',
    message: 'GPU agents are reviewed by the platform team',
  },
];

describe('governance', () => {
  let h: Master;
  beforeAll(async () => {
    h = await startMaster({ MASTER_POLICIES: JSON.stringify(OPERATOR_POLICIES) });
  });
  afterAll(() => h.stop());

  it('lists the built-in tier policies and the operator policies from configuration', async () => {
    const res = await request(h.app)
      .get('/api/v1/governance/policies')
      .set('Authorization', h.auth(['governance:read']));
    expect(res.status).toBe(200);
    const ids = res.body.items.map((policy: { id: string }) => policy.id);
    expect(ids).toEqual(
      expect.arrayContaining([
        'tier-elevated-sandboxing',
        'tier-elevated-resource-limits',
        'tier-elevated-threat-model',
        'secrets-read-tier',
        'acme.description-required',
        'acme.gpu-warning',
      ]),
    );
    expect(res.body.items.find((policy: { id: string }) => policy.id === 'acme.description-required')).toMatchObject({
      source: 'config',
      severity: 'error',
      appliesTo: null,
    });
    expect(res.body.items.find((policy: { id: string }) => policy.id === 'secrets-read-tier')).toMatchObject({ source: 'builtin', path: '$.security.tier' });
    expect(
      (
        await request(h.app)
          .get('/api/v1/governance/policies')
          .set('Authorization', h.auth(['agents:read']))
      ).status,
    ).toBe(403);
    expect((await request(h.app).get('/api/v1/governance/policies')).status).toBe(401);
  });

  it('reports a non-compliant manifest naming each violated policy, JSON path and message, and its frameworks', async () => {
    const agent = await createAgent(
      h,
      manifest({
        namespace: uniqueName('gov'),
        security: { tier: 'tier_1_read', capabilities: { required: ['secrets-read', 'gpu'] } },
        governance: { compliance: { frameworks: ['SOC2', 'hipaa'] }, compliance_profiles: ['iso-27001'] },
      }),
    );
    const res = await request(h.app)
      .get(`/api/v1/governance/compliance/${agent.id}`)
      .set('Authorization', h.auth(['governance:read']));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ agentId: agent.id, compliant: false, frameworks: ['soc2', 'hipaa', 'iso-27001'] });
    expect(res.body.violations).toEqual(
      expect.arrayContaining([
        {
          policyId: 'secrets-read-tier',
          severity: 'error',
          path: '$.security.tier',
          message: 'the secrets-read capability needs security.tier tier_2_write_limited or above',
        },
        { policyId: 'acme.description-required', severity: 'error', path: '$.metadata.description', message: 'every agent needs metadata.description' },
        {
          policyId: 'acme.gpu-warning',
          severity: 'warning',
          path: '$.security.capabilities.required',
          message: 'GPU agents are reviewed by the platform team',
        },
      ]),
    );
    expect(res.body.violations).toHaveLength(3);
  });

  it('holds tier 3 and 4 agents to sandboxing, resource limits and a threat model', async () => {
    const agent = await createAgent(
      h,
      manifest({ namespace: uniqueName('gov'), description: 'elevated', security: { tier: 'tier_4_system_admin', sandboxing: { required: false } } }),
    );
    const res = await request(h.app)
      .get(`/api/v1/governance/compliance/${agent.id}`)
      .set('Authorization', h.auth(['governance:read']));
    expect(res.body.compliant).toBe(false);
    expect(res.body.violations.map((violation: { policyId: string; path: string }) => [violation.policyId, violation.path])).toEqual([
      ['tier-elevated-sandboxing', '$.security.sandboxing.required'],
      ['tier-elevated-resource-limits', '$.security.sandboxing.resource_limits'],
      ['tier-elevated-threat-model', '$.security.threat_model'],
    ]);
  });

  it('finds a complete manifest compliant', async () => {
    const agent = await createAgent(h, manifest({ namespace: uniqueName('gov'), description: 'complete', security: goodSecurity(['secrets-read']) }));
    const res = await request(h.app)
      .get(`/api/v1/governance/compliance/${agent.id}`)
      .set('Authorization', h.auth(['governance:read']));
    expect(res.body).toMatchObject({ compliant: true, violations: [], frameworks: [] });
  });

  it('answers 404 for an unknown agent and 400 for a bad id', async () => {
    expect(
      (
        await request(h.app)
          .get('/api/v1/governance/compliance/00000000-0000-4000-8000-000000000000')
          .set('Authorization', h.auth(['governance:read']))
      ).status,
    ).toBe(404);
    expect(
      (
        await request(h.app)
          .get('/api/v1/governance/compliance/x')
          .set('Authorization', h.auth(['governance:read']))
      ).status,
    ).toBe(400);
  });

  it('refuses to start with operator policies that are not valid JSON Logic, naming the policy', async () => {
    const start = (policies: string) =>
      startService(masterService, {
        env: { PORT: '0', LOG_LEVEL: 'silent', DATABASE_URL: testDatabaseUrl, REDIS_URL: testRedisUrl, MASTER_POLICIES: policies },
      });
    await expect(start(JSON.stringify([{ id: 'acme.bad', name: 'bad', rule: { frobnicate: [1] }, message: 'x' }]))).rejects.toThrow(/acme\.bad.*rule/);
    await expect(start('not json')).rejects.toThrow(/MASTER_POLICIES is not JSON/);
    await expect(start(JSON.stringify([{ id: 'tier-elevated-sandboxing', name: 'dup', rule: true, message: 'x' }]))).rejects.toThrow(/used twice/);
  });
});
