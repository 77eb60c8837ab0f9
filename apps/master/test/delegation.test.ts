import { TestIssuer, uniqueName } from '@platform/testing';
import request from 'supertest';
import { startFakeAuth } from './fake-auth';
import { claimsOf, startFakeWorkers } from './fake-workers';
import { manifest, startMaster, type Master } from './harness';

/**
 * Master runs orchestrations for the user who asks (RFC 8693): with a key of its own it exchanges
 * the caller's token at auth for a delegated one (the user's `sub` and teams, the master in `act`),
 * so the run workers creates is the user's, and a master key reaches no further than the user may.
 */
describe('orchestrations run on workers with a token delegated by the user', () => {
  let issuer: TestIssuer;
  let auth: Awaited<ReturnType<typeof startFakeAuth>>;
  let workers: Awaited<ReturnType<typeof startFakeWorkers>>;
  let h: Master;
  const masterSub = uniqueName('master-service');
  const team = uniqueName('team');
  const permissions = ['agents:read', 'agents:write', 'orchestration:read', 'orchestration:write'];

  beforeAll(async () => {
    issuer = await new TestIssuer().start();
    const apiKey = `mk_${uniqueName('key')}`;
    auth = await startFakeAuth(issuer, { apiKey, sub: masterSub, permissions: ['workers:read', 'tokens:exchange'] });
    workers = await startFakeWorkers();
    // SERVICE_ROLE=api: no scheduled execution sync from this test (a key enables it).
    h = await startMaster({ WORKERS_URL: workers.url, AUTH_URL: auth.url, MASTER_API_KEY: apiKey, SERVICE_ROLE: 'api' }, issuer);
  });
  afterAll(async () => {
    await h?.stop();
    await workers?.stop();
    await auth?.stop();
    await issuer.stop();
  });

  const workflowOf = async (user: string) => {
    const bearer = issuer.bearer(permissions, { sub: user, teams: [{ id: team, role: 'editor' }] });
    const agent = await request(h.app).post('/api/v1/agents').set('Authorization', bearer).send(manifest()).expect(201);
    const workflow = await request(h.app)
      .post('/api/v1/orchestration/workflows')
      .set('Authorization', bearer)
      .send({ name: uniqueName('flow'), steps: [{ id: 'only', agentId: agent.body.id }], team })
      .expect(201);
    return { bearer, workflow: workflow.body as { id: string } };
  };

  it('creates the run on workers as the user, with the master as the actor, shared with the workflow team', async () => {
    const user = uniqueName('alice');
    const { bearer, workflow } = await workflowOf(user);
    const run = await request(h.app).post(`/api/v1/orchestration/workflows/${workflow.id}/execute`).set('Authorization', bearer).send({ inputs: {} });
    expect(run.status).toBe(202);
    expect(run.body).toMatchObject({ owner: user, requestedBy: user, team });
    const sent = workers.submitted.get(run.body.workersWorkflowId)!;
    expect(claimsOf(sent.authorization)).toMatchObject({ sub: user, act: { sub: masterSub }, teams: [{ id: team, role: 'editor' }] });
    expect(sent.authorization).not.toBe(bearer);
    expect((sent.body as { team?: string }).team).toBe(team);
    expect(auth.exchanges.filter((exchange) => exchange.subject === user)).toEqual([{ subject: user, actor: masterSub }]);
  });

  it('answers 502 naming auth, and starts nothing on workers, when auth refuses the exchange', async () => {
    const { bearer, workflow } = await workflowOf(uniqueName('bob'));
    const before = workers.submitted.size;
    auth.refuse(400);
    try {
      const run = await request(h.app).post(`/api/v1/orchestration/workflows/${workflow.id}/execute`).set('Authorization', bearer).send({ inputs: {} });
      expect(run.status).toBe(502);
      expect(run.body.error).toMatchObject({ code: 'upstream_error', details: { service: 'auth', status: 400 } });
    } finally {
      auth.refuse(undefined);
    }
    expect(workers.submitted.size).toBe(before);
  });
});
