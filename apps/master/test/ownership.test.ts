import { testDatabaseUrl, uniqueName } from '@platform/testing';
import { Client } from 'pg';
import request from 'supertest';
import { claimsOf, startFakeWorkers } from './fake-workers';
import { manifest, startMaster, type Master } from './harness';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * What the probe of issue 27 found, as the requests it sent: bob (with every permission a user
 * has, but no admin one) changed and deleted alice's agent and ran her orchestration. Each of
 * these answers as for a resource that does not exist now; a team viewer is told 403.
 */
describe('who owns what in the master', () => {
  let h: Master;
  let workers: Awaited<ReturnType<typeof startFakeWorkers>>;
  const permissions = ['agents:read', 'agents:write', 'orchestration:read', 'orchestration:write', 'governance:read', 'certification:read'];
  const team = uniqueName('team');
  const alice = () => h.issuer.bearer(permissions, { sub: 'alice', teams: [{ id: team, role: 'editor' }] });
  const bob = () => h.issuer.bearer(permissions, { sub: 'bob' });
  const viewer = () => h.issuer.bearer(permissions, { sub: 'vera', teams: [{ id: team, role: 'viewer' }] });
  const editor = () => h.issuer.bearer(permissions, { sub: 'ed', teams: [{ id: team, role: 'editor' }] });
  const admin = () => h.issuer.bearer([...permissions, 'agents:admin', 'orchestration:admin'], { sub: 'root' });

  beforeAll(async () => {
    workers = await startFakeWorkers();
    h = await startMaster({ WORKERS_URL: workers.url });
  });
  afterAll(async () => {
    await h.stop();
    await workers.stop();
  });

  const declare = async (auth: string, query = '', body: Json = manifest({ namespace: uniqueName('own') })) => {
    const res = await request(h.app).post(`/api/v1/agents${query}`).set('Authorization', auth).send(body);
    expect(res.status).toBe(201);
    return res.body as Json;
  };
  const compose = async (auth: string, agentId: string, extra: Json = {}) =>
    request(h.app)
      .post('/api/v1/orchestration/workflows')
      .set('Authorization', auth)
      .send({ name: uniqueName('flow'), steps: [{ id: 'only', agentId }], ...extra });

  it("does not let bob change or delete alice's agent: 404 as for one that does not exist", async () => {
    const agent = await declare(alice());
    expect(agent).toMatchObject({ owner: 'alice', team: null, createdBy: 'alice' });
    const replaced = await request(h.app)
      .put(`/api/v1/agents/${agent.id}`)
      .set('Authorization', bob())
      .send(manifest({ namespace: agent.namespace }));
    expect(replaced.status).toBe(404);
    expect(replaced.body.error.message).toBe(`Agent ${agent.id} not found`);
    expect((await request(h.app).delete(`/api/v1/agents/${agent.id}`).set('Authorization', bob())).status).toBe(404);
    expect((await request(h.app).get(`/api/v1/agents/${agent.id}`).set('Authorization', bob())).status).toBe(404);
    expect((await request(h.app).get(`/api/v1/governance/compliance/${agent.id}`).set('Authorization', bob())).status).toBe(404);
    const kept = await request(h.app).get(`/api/v1/agents/${agent.id}`).set('Authorization', alice());
    expect(kept.status).toBe(200);
    expect(kept.body).toEqual(agent);
    const listed = await request(h.app).get(`/api/v1/agents?q=${agent.namespace}`).set('Authorization', bob());
    expect(listed.body).toMatchObject({ items: [], total: 0 });
  });

  it("shares an agent with a team: viewers read it (403 to change), editors change it; only the team's editors may share with it", async () => {
    const agent = await declare(alice(), `?team=${team}`);
    expect(agent).toMatchObject({ owner: 'alice', team });
    expect((await request(h.app).get(`/api/v1/agents/${agent.id}`).set('Authorization', viewer())).status).toBe(200);
    const refused = await request(h.app).delete(`/api/v1/agents/${agent.id}`).set('Authorization', viewer());
    expect(refused.status).toBe(403);
    expect(refused.body.error.details.reason).toBe('not_owner');
    const changed = await request(h.app)
      .put(`/api/v1/agents/${agent.id}`)
      .set('Authorization', editor())
      .send(manifest({ namespace: agent.namespace }));
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ owner: 'alice', team });
    expect((await request(h.app).post(`/api/v1/agents?team=${team}`).set('Authorization', viewer()).send(manifest())).status).toBe(403);
    expect((await request(h.app).post(`/api/v1/agents?team=${team}`).set('Authorization', bob()).send(manifest())).status).toBe(403);
    expect((await request(h.app).post('/api/v1/agents?team=').set('Authorization', alice()).send(manifest())).status).toBe(400);
    expect((await request(h.app).post('/api/v1/agents?team=a%20b').set('Authorization', alice()).send(manifest())).status).toBe(400);
  });

  it("does not let bob run alice's orchestration, nor read its execution, nor compose her private agent into his own", async () => {
    const agent = await declare(alice());
    const workflow = await compose(alice(), agent.id, { team });
    expect(workflow.status).toBe(201);
    expect(workflow.body).toMatchObject({ owner: 'alice', team });
    const before = workers.submitted.size;
    const run = await request(h.app).post(`/api/v1/orchestration/workflows/${workflow.body.id}/execute`).set('Authorization', bob()).send({ inputs: {} });
    expect(run.status).toBe(404);
    expect(run.body.error.message).toBe(`Workflow ${workflow.body.id} not found`);
    const byViewer = await request(h.app)
      .post(`/api/v1/orchestration/workflows/${workflow.body.id}/execute`)
      .set('Authorization', viewer())
      .send({ inputs: {} });
    expect(byViewer.status).toBe(403);
    expect(workers.submitted.size).toBe(before);
    const listed = await request(h.app).get(`/api/v1/orchestration/workflows?q=${workflow.body.name}`).set('Authorization', bob());
    expect(listed.body.total).toBe(0);

    const execution = await request(h.app)
      .post(`/api/v1/orchestration/workflows/${workflow.body.id}/execute`)
      .set('Authorization', alice())
      .send({ inputs: {} });
    expect(execution.status).toBe(202);
    expect(execution.body).toMatchObject({ owner: 'alice', team, requestedBy: 'alice' });
    expect((await request(h.app).get(`/api/v1/orchestration/executions/${execution.body.id}`).set('Authorization', bob())).status).toBe(404);
    expect((await request(h.app).get(`/api/v1/orchestration/executions/${execution.body.id}`).set('Authorization', viewer())).status).toBe(200);

    const borrowed = await compose(bob(), agent.id);
    expect(borrowed.status).toBe(400);
    expect(borrowed.body.error.details.issues).toEqual([{ path: 'body.steps.0.agentId', code: 'unknown_agent', message: `no agent ${agent.id}` }]);
  });

  it('runs an orchestration on workers as the user who ran it: the run is created with a token whose subject is theirs', async () => {
    const agent = await declare(alice(), `?team=${team}`);
    const workflow = await compose(alice(), agent.id, { team });
    const run = await request(h.app).post(`/api/v1/orchestration/workflows/${workflow.body.id}/execute`).set('Authorization', editor()).send({ inputs: {} });
    expect(run.status).toBe(202);
    expect(run.body).toMatchObject({ owner: 'ed', team, requestedBy: 'ed' });
    const sent = workers.submitted.get(run.body.workersWorkflowId)!;
    expect(claimsOf(sent.authorization).sub).toBe('ed');
  });

  it('takes a delegated token (the gateway acting for a user) as the user: what it declares is theirs', async () => {
    const delegated = h.issuer.bearer(permissions, { sub: 'alice', act: { sub: 'gateway', client_id: 'gateway' } });
    const agent = await declare(delegated);
    expect(agent).toMatchObject({ owner: 'alice', createdBy: 'alice' });
    expect(
      (
        await request(h.app)
          .put(`/api/v1/agents/${agent.id}`)
          .set('Authorization', alice())
          .send(manifest({ namespace: agent.namespace }))
      ).status,
    ).toBe(200);
    expect(
      (
        await request(h.app)
          .delete(`/api/v1/agents/${agent.id}`)
          .set('Authorization', h.issuer.bearer(permissions, { sub: 'gateway' }))
      ).status,
    ).toBe(404);
  });

  it('reads public and mirrored agents as a catalog, but only their owner changes them', async () => {
    const agent = await declare(alice(), '', manifest({ namespace: uniqueName('pub'), visibility: 'public' }));
    expect((await request(h.app).get(`/api/v1/agents/${agent.id}`).set('Authorization', bob())).status).toBe(200);
    expect((await request(h.app).get(`/api/v1/agents?q=${agent.namespace}`).set('Authorization', bob())).body.total).toBe(1);
    expect((await request(h.app).delete(`/api/v1/agents/${agent.id}`).set('Authorization', bob())).status).toBe(403);
    expect((await compose(bob(), agent.id)).status).toBe(201);
  });

  it('leaves agents and workflows recorded before owners existed to the admin permission', async () => {
    const agent = await declare(alice());
    const workflow = await compose(alice(), agent.id);
    const db = new Client({ connectionString: testDatabaseUrl });
    await db.connect();
    try {
      await db.query('UPDATE "master"."Agent" SET "owner" = NULL WHERE "id" = $1', [agent.id]);
      await db.query('UPDATE "master"."Workflow" SET "owner" = NULL, "team" = NULL WHERE "id" = $1', [workflow.body.id]);
    } finally {
      await db.end();
    }
    expect((await request(h.app).get(`/api/v1/agents/${agent.id}`).set('Authorization', alice())).status).toBe(404);
    expect((await request(h.app).get(`/api/v1/agents/${agent.id}`).set('Authorization', admin())).body.owner).toBeNull();
    expect((await request(h.app).post(`/api/v1/orchestration/workflows/${workflow.body.id}/execute`).set('Authorization', alice()).send({})).status).toBe(404);
    expect((await request(h.app).post(`/api/v1/orchestration/workflows/${workflow.body.id}/execute`).set('Authorization', admin()).send({})).status).toBe(202);
  });
});
