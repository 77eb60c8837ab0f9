import { uniqueName } from '@platform/testing';
import request from 'supertest';
import { startFakeWorkers } from './fake-workers';
import { AGENT_ENDPOINT, TEST_USER, createAgent, goodSecurity, manifest, startMaster, type Master } from './harness';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('orchestration (against a small fake workers API; end-to-end.test.ts runs the real one)', () => {
  let h: Master;
  let workers: Awaited<ReturnType<typeof startFakeWorkers>>;
  let researcher: Json;
  let writer: Json;
  let admin: Json;
  const write = () => h.auth(['orchestration:write', 'orchestration:read']);

  beforeAll(async () => {
    workers = await startFakeWorkers();
    h = await startMaster({ WORKERS_URL: workers.url });
    const namespace = uniqueName('orch');
    researcher = await createAgent(h, manifest({ namespace, name: 'researcher', security: goodSecurity(['network-outbound'], ['browser']) }));
    writer = await createAgent(h, manifest({ namespace, name: 'writer', security: goodSecurity([]) }));
    admin = await createAgent(h, manifest({ namespace, name: 'admin', security: goodSecurity(['process-spawn']) }));
  });
  afterAll(async () => {
    await h.stop();
    await workers.stop();
  });

  const twoSteps = () => ({
    name: uniqueName('research-and-write'),
    steps: [
      { id: 'research', agentId: researcher.id, inputs: { topic: '{{input.topic}}', depth: 2 }, requires: ['browser'] },
      { id: 'write', agentId: writer.id, dependsOn: ['research'], inputs: { notes: '{{steps.research.output.notes}}', title: 'About {{input.topic}}' } },
    ],
  });

  it('creates and lists a multi-agent workflow', async () => {
    const body = twoSteps();
    const created = await request(h.app).post('/api/v1/orchestration/workflows').set('Authorization', write()).send(body);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: body.name, createdBy: TEST_USER, owner: TEST_USER, team: null });
    expect(created.body.steps[1]).toEqual({ ...body.steps[1], requires: [], url: AGENT_ENDPOINT });
    expect(created.body.capabilities).toHaveLength(18);
    const list = await request(h.app)
      .get(`/api/v1/orchestration/workflows?q=${body.name}`)
      .set('Authorization', h.auth(['orchestration:read']));
    expect(list.body).toMatchObject({ total: 1, limit: 50, offset: 0 });
    expect(list.body.items[0].id).toBe(created.body.id);
  });

  it('refuses a graph with a cycle, unknown or duplicate steps, or templates that read no upstream step', async () => {
    const post = (steps: unknown[]) => request(h.app).post('/api/v1/orchestration/workflows').set('Authorization', write()).send({ name: 'bad', steps });
    const codes = async (steps: unknown[]) => {
      const res = await post(steps);
      expect(res.status).toBe(400);
      return res.body.error.details.issues.map((issue: { path: string; code: string }) => `${issue.path} ${issue.code}`);
    };
    const a = researcher.id;
    expect(
      await codes([
        { id: 'a', agentId: a, dependsOn: ['b'] },
        { id: 'b', agentId: a, dependsOn: ['a'] },
      ]),
    ).toEqual(['body.steps.0.dependsOn cycle']);
    expect(await codes([{ id: 'a', agentId: a, dependsOn: ['zzz'] }])).toEqual(['body.steps.0.dependsOn.0 unknown_step']);
    expect(
      await codes([
        { id: 'a', agentId: a },
        { id: 'a', agentId: a },
      ]),
    ).toEqual(['body.steps.1.id duplicate_step']);
    expect(
      await codes([
        { id: 'a', agentId: a },
        { id: 'b', agentId: a, dependsOn: ['a'], inputs: { x: '{{steps.a.output}}', y: ['{{steps.b.output.z}}'], z: '{{env.HOME}}' } },
      ]),
    ).toEqual(['body.steps.1.inputs.y.0 template_not_upstream', 'body.steps.1.inputs.z template_invalid']);
    expect((await post([])).status).toBe(400);
    expect((await post([{ id: 'a', agentId: 'nope' }])).status).toBe(400);
  });

  it('refuses a step whose agent lacks a required capability, or requires one the workflow is not granted', async () => {
    const lacks = await request(h.app)
      .post('/api/v1/orchestration/workflows')
      .set('Authorization', write())
      .send({ name: 'x', steps: [{ id: 'w', agentId: writer.id, requires: ['gpu'] }] });
    expect(lacks.status).toBe(400);
    expect(lacks.body.error.details.issues).toEqual([expect.objectContaining({ path: 'body.steps.0.requires.0', code: 'agent_lacks_capability' })]);
    const notGranted = await request(h.app)
      .post('/api/v1/orchestration/workflows')
      .set('Authorization', write())
      .send({ name: 'x', capabilities: ['network-outbound'], steps: [{ id: 'a', agentId: admin.id }] });
    expect(notGranted.status).toBe(400);
    expect(notGranted.body.error.details.issues).toEqual([
      expect.objectContaining({ path: 'body.steps.0.agentId', code: 'required_capability_unavailable', message: expect.stringContaining('process-spawn') }),
    ]);
    const endpointless = await createAgent(h, { ...manifest({ namespace: uniqueName('orch'), security: goodSecurity([]) }), spec: { role: 'no endpoint' } });
    const noEndpoint = await request(h.app)
      .post('/api/v1/orchestration/workflows')
      .set('Authorization', write())
      .send({ name: 'x', steps: [{ id: 'a', agentId: endpointless.id }] });
    expect(noEndpoint.body.error.details.issues).toEqual([expect.objectContaining({ path: 'body.steps.0.url', code: 'agent_endpoint_missing' })]);
    const given = await request(h.app)
      .post('/api/v1/orchestration/workflows')
      .set('Authorization', write())
      .send({ name: 'x', steps: [{ id: 'a', agentId: endpointless.id, url: 'https://agents.example/run' }] });
    expect(given.status).toBe(201);
    expect(given.body.steps[0].url).toBe('https://agents.example/run');
    const unknown = await request(h.app)
      .post('/api/v1/orchestration/workflows')
      .set('Authorization', write())
      .send({ name: 'x', steps: [{ id: 'a', agentId: '00000000-0000-4000-8000-000000000000' }] });
    expect(unknown.body.error.details.issues[0].code).toBe('unknown_agent');
  });

  it('executes on workers (202), mirrors each step, and refuses to delete an agent while the run is unfinished', async () => {
    const workflow = (await request(h.app).post('/api/v1/orchestration/workflows').set('Authorization', write()).send(twoSteps())).body;
    const caller = write();
    const accepted = await request(h.app)
      .post(`/api/v1/orchestration/workflows/${workflow.id}/execute`)
      .set('Authorization', caller)
      .send({ inputs: { topic: 'tides' } });
    expect(accepted.status).toBe(202);
    expect(accepted.body).toMatchObject({ workflowId: workflow.id, state: 'pending', inputs: { topic: 'tides' }, requestedBy: TEST_USER, owner: TEST_USER });
    const workersId = accepted.body.workersWorkflowId;
    const sent = workers.submitted.get(workersId)!;
    expect(sent.authorization).toBe(caller); // the caller's own token: workers judges the caller's permissions
    expect(sent.body.name).toBe(`master.${workflow.id}`);
    expect(sent.body.steps).toEqual([
      { id: 'research', type: 'agent', agent: `${researcher.namespace}/researcher`, url: AGENT_ENDPOINT, depends_on: [], input: { topic: 'tides', depth: 2 } },
      // The engine's own template form: an agent step's output there is {status, headers, body}.
      {
        id: 'write',
        type: 'agent',
        agent: `${writer.namespace}/writer`,
        url: AGENT_ENDPOINT,
        depends_on: ['research'],
        input: { notes: '{{research.body.notes}}', title: 'About tides' },
      },
    ]);

    const deleteWriter = await request(h.app)
      .delete(`/api/v1/agents/${writer.id}`)
      .set('Authorization', h.auth(['agents:write']));
    expect(deleteWriter.status).toBe(409);
    expect(deleteWriter.body.error.details.executions).toContain(accepted.body.id);

    workers.set(workersId, 'running', { research: { state: 'completed' }, write: { state: 'running' } });
    const running = await request(h.app)
      .get(`/api/v1/orchestration/executions/${accepted.body.id}`)
      .set('Authorization', h.auth(['orchestration:read']));
    expect(running.status).toBe(200);
    expect(running.body.state).toBe('running');
    expect(running.body.steps).toEqual([
      { id: 'research', agentId: researcher.id, state: 'completed', error: null },
      { id: 'write', agentId: writer.id, state: 'running', error: null },
    ]);

    workers.set(workersId, 'completed', { write: { state: 'completed' } });
    const done = await request(h.app)
      .get(`/api/v1/orchestration/executions/${accepted.body.id}`)
      .set('Authorization', h.auth(['orchestration:read']));
    expect(done.body).toMatchObject({ state: 'completed', completedAt: expect.any(String) });
    const events = await request(h.app)
      .get('/api/v1/monitoring/events?type=execution.*&limit=500')
      .set('Authorization', h.auth(['monitoring:read']));
    const mine = events.body.items
      .filter((event: { subject: string }) => event.subject === accepted.body.id)
      .map((event: { type: string; data: Json }) => `${event.type} ${event.data.to ?? event.data.state}`);
    expect(mine.reverse()).toEqual(['execution.created pending', 'execution.state_changed running', 'execution.state_changed completed']);
  });

  it('answers 400 for missing inputs and 404 for an unknown workflow or execution', async () => {
    const workflow = (await request(h.app).post('/api/v1/orchestration/workflows').set('Authorization', write()).send(twoSteps())).body;
    const missing = await request(h.app).post(`/api/v1/orchestration/workflows/${workflow.id}/execute`).set('Authorization', write()).send({});
    expect(missing.status).toBe(400);
    expect(missing.body.error.details.issues[0]).toMatchObject({ code: 'input_missing' });
    const nobody = '00000000-0000-4000-8000-000000000000';
    expect((await request(h.app).post(`/api/v1/orchestration/workflows/${nobody}/execute`).set('Authorization', write()).send({})).status).toBe(404);
    expect((await request(h.app).get(`/api/v1/orchestration/executions/${nobody}`).set('Authorization', write())).status).toBe(404);
    expect(
      (await request(h.app).post(`/api/v1/orchestration/workflows/${workflow.id}/execute`).set('Authorization', write()).send({ inputs: 'x' })).status,
    ).toBe(400);
  });

  it("passes on workers' refusal of the caller as 403", async () => {
    const workflow = (await request(h.app).post('/api/v1/orchestration/workflows').set('Authorization', write()).send(twoSteps())).body;
    workers.refuse(403);
    try {
      const res = await request(h.app)
        .post(`/api/v1/orchestration/workflows/${workflow.id}/execute`)
        .set('Authorization', write())
        .send({ inputs: { topic: 'x' } });
      expect(res.status).toBe(403);
      expect(res.body.error.details.dependency).toBe('workers');
    } finally {
      workers.refuse(undefined);
    }
  });

  it('needs the orchestration permissions', async () => {
    expect((await request(h.app).get('/api/v1/orchestration/workflows')).status).toBe(401);
    expect(
      (
        await request(h.app)
          .get('/api/v1/orchestration/workflows')
          .set('Authorization', h.auth(['agents:read']))
      ).status,
    ).toBe(403);
    expect(
      (
        await request(h.app)
          .post('/api/v1/orchestration/workflows')
          .set('Authorization', h.auth(['orchestration:read']))
          .send(twoSteps())
      ).status,
    ).toBe(403);
  });
});

describe('orchestration with workers down', () => {
  let h: Master;
  beforeAll(async () => {
    h = await startMaster();
  });
  afterAll(() => h.stop());

  it('answers 503 naming workers and records the execution as failed', async () => {
    const agent = await createAgent(h, manifest({ namespace: uniqueName('down'), security: goodSecurity([]) }));
    const auth = h.auth(['orchestration:*']);
    const workflow = (
      await request(h.app)
        .post('/api/v1/orchestration/workflows')
        .set('Authorization', auth)
        .send({ name: 'x', steps: [{ id: 'a', agentId: agent.id }] })
    ).body;
    const res = await request(h.app).post(`/api/v1/orchestration/workflows/${workflow.id}/execute`).set('Authorization', auth).send({});
    expect(res.status).toBe(503);
    expect(res.body.error).toMatchObject({ code: 'service_unavailable', details: { dependency: 'workers' } });
    const events = await request(h.app)
      .get('/api/v1/monitoring/events?type=execution.state_changed&limit=500')
      .set('Authorization', h.auth(['monitoring:read']));
    expect(
      events.body.items.some((event: { data: { workflowId: string; to: string } }) => event.data.workflowId === workflow.id && event.data.to === 'failed'),
    ).toBe(true);
    // The failed execution no longer holds its agent.
    expect(
      (
        await request(h.app)
          .delete(`/api/v1/agents/${agent.id}`)
          .set('Authorization', h.auth(['agents:write']))
      ).status,
    ).toBe(204);
  });
});
