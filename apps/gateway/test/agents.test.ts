import { uniqueName } from '@platform/testing';
import request from 'supertest';
import { manifest, startGateway, type Gateway } from './harness';

describe('agents through the gateway', () => {
  let g: Gateway;
  let owner: string;
  let writer: string;
  beforeAll(async () => {
    g = await startGateway();
    owner = uniqueName('owner');
    writer = g.issuer.bearer(['agents:read', 'agents:write', 'agents:execute'], { sub: owner });
  });
  afterAll(() => g.stop());

  it('creates an agent in one call: registry, master, mesh, tracing, deployer, each step reported', async () => {
    const body = manifest();
    const created = await request(g.app)
      .post('/api/v1/agents')
      .set('Authorization', writer)
      .send({ manifest: body, deployment: { endpoint: 'http://127.0.0.1:9/agent' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      namespace: 'acme',
      name: body.metadata.name,
      version: '1.0.0',
      status: 'active',
      owner,
      endpoint: 'http://127.0.0.1:9/agent',
      deployment: { deployer: 'none' },
    });
    expect(created.body.steps.map((step: { step: string; status: string }) => `${step.step}:${step.status}`)).toEqual([
      'registry:done',
      'master:done',
      'mesh:done',
      'tracing:done',
      'deployer:done',
    ]);
    expect(created.body.capabilities).toEqual(['network-outbound', 'tool-execution']);

    // Each service received what it should, with the caller's token forwarded.
    const published = g.fakes.registry.calls('POST', '/api/v1/agents').at(-1)!;
    expect(published.body).toEqual(body);
    expect(published.authorization).toBe(writer);
    expect(g.fakes.master.calls('POST', '/api/v1/agents').at(-1)!.body).toEqual(body);
    expect(g.fakes.mesh.calls('POST', '/api/v1/agents').at(-1)!.body).toMatchObject({
      id: created.body.id,
      name: body.metadata.name,
      namespace: 'acme',
      capabilities: ['network-outbound', 'tool-execution'],
      endpoint: 'http://127.0.0.1:9/agent',
    });
    const span = g.fakes.tracing.calls('POST', '/v1/traces').at(-1)!.body as {
      resourceSpans: Array<{ resource: { attributes: Array<{ key: string; value: { stringValue: string } }> } }>;
    };
    expect(span.resourceSpans[0].resource.attributes).toContainEqual({
      key: 'openinference.project.name',
      value: { stringValue: `agent-acme-${body.metadata.name}` },
    });
    expect(created.body.refs).toMatchObject({ meshId: created.body.id, tracingProject: `agent-acme-${body.metadata.name}` });

    const read = await request(g.app).get(`/api/v1/agents/${created.body.id}`).set('Authorization', writer);
    expect(read.status).toBe(200);
    expect(read.body.id).toBe(created.body.id);
    const list = await request(g.app).get('/api/v1/agents?namespace=acme&capability=tool-execution&limit=500').set('Authorization', writer);
    expect(list.status).toBe(200);
    expect(list.body.items.map((agent: { id: string }) => agent.id)).toContain(created.body.id);

    const again = await request(g.app).post('/api/v1/agents').set('Authorization', writer).send({ manifest: body });
    expect(again.status).toBe(409);
  });

  it('a failing step undoes the ones before it and answers 502 naming the step and service', async () => {
    const body = manifest();
    g.fakes.tracing.fail('POST', '^/v1/traces', 503);
    const before = {
      registry: g.fakes.registry.calls('DELETE', '/api/v1/agents').length,
      master: g.fakes.master.calls('DELETE', '/api/v1/agents').length,
      mesh: g.fakes.mesh.calls('DELETE', '/api/v1/agents').length,
    };
    try {
      const failed = await request(g.app).post('/api/v1/agents').set('Authorization', writer).send({ manifest: body });
      expect(failed.status).toBe(502);
      expect(failed.body.error).toMatchObject({
        type: 'api_error',
        code: 'upstream_error',
        details: { step: 'tracing', service: 'tracing', upstreamStatus: 503 },
      });
      const steps = failed.body.error.details.agent.steps.map((step: { step: string; status: string }) => `${step.step}:${step.status}`);
      expect(steps).toEqual(['registry:compensated', 'master:compensated', 'mesh:compensated', 'tracing:failed']);
      expect(failed.body.error.details.agent.status).toBe('failed');
      // The undo calls reached each service: the new agent deleted from registry, master and mesh.
      expect(g.fakes.registry.calls('DELETE', `/api/v1/agents/acme/${body.metadata.name}`)).toHaveLength(1);
      expect(g.fakes.master.calls('DELETE', '/api/v1/agents').length).toBe(before.master + 1);
      expect(g.fakes.mesh.calls('DELETE', `/api/v1/agents/${failed.body.error.details.agent.id}`)).toHaveLength(1);
      expect(g.fakes.registry.calls('DELETE', '/api/v1/agents').length).toBe(before.registry + 1);
      expect(g.fakes.mesh.calls('DELETE', '/api/v1/agents').length).toBe(before.mesh + 1);
      const stored = await request(g.app).get(`/api/v1/agents/${failed.body.error.details.agent.id}`).set('Authorization', writer);
      expect(stored.body.status).toBe('failed');
    } finally {
      g.fakes.tracing.failures.clear();
    }
    // Creating it again once tracing is back replaces the failed record.
    const retried = await request(g.app).post('/api/v1/agents').set('Authorization', writer).send({ manifest: body });
    expect(retried.status).toBe(201);
  });

  it('a dependency that cannot be reached answers 502 naming it', async () => {
    const g2 = await startGateway({ MASTER_URL: 'http://127.0.0.1:9', GATEWAY_UPSTREAM_TIMEOUT_MS: '2000' });
    try {
      const token = g2.issuer.bearer(['agents:write'], { sub: owner });
      const failed = await request(g2.app).post('/api/v1/agents').set('Authorization', token).send({ manifest: manifest() });
      expect(failed.status).toBe(502);
      expect(failed.body.error.details).toMatchObject({ step: 'master', service: 'master' });
      expect(failed.body.error.message).toMatch(/master could not be reached/);
    } finally {
      await g2.stop();
    }
  });

  it('PUT publishes a new version everywhere and DELETE removes the agent everywhere', async () => {
    const body = manifest();
    const created = await request(g.app).post('/api/v1/agents').set('Authorization', writer).send({ manifest: body });
    const id = created.body.id;
    const sameVersion = await request(g.app)
      .put(`/api/v1/agents/${id}`)
      .set('Authorization', writer)
      .send({ manifest: { ...body, metadata: { ...body.metadata, description: 'changed' } } });
    expect(sameVersion.status).toBe(409);
    const next = { ...body, metadata: { ...body.metadata, version: '1.1.0' } };
    const updated = await request(g.app)
      .put(`/api/v1/agents/${id}`)
      .set('Authorization', writer)
      .send({ manifest: next, deployment: { replicas: 2 } });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ version: '1.1.0', status: 'active', deployment: { replicas: 2 } });
    expect(g.fakes.registry.calls('POST', `/api/v1/agents/acme/${body.metadata.name}/versions`).at(-1)!.body).toEqual(next);
    expect(g.fakes.master.calls('PUT', `/api/v1/agents/${created.body.refs.masterId}`).at(-1)!.body).toEqual(next);

    // Another user may not even see it: 404, as for a missing agent (tenancy.test.ts tries every route).
    const other = g.issuer.bearer(['agents:write'], { sub: uniqueName('other') });
    expect((await request(g.app).delete(`/api/v1/agents/${id}`).set('Authorization', other)).status).toBe(404);
    const removed = await request(g.app).delete(`/api/v1/agents/${id}`).set('Authorization', writer);
    expect(removed.status).toBe(204);
    expect(g.fakes.mesh.calls('DELETE', `/api/v1/agents/${id}`)).toHaveLength(1);
    expect(g.fakes.master.calls('DELETE', `/api/v1/agents/${created.body.refs.masterId}`)).toHaveLength(1);
    expect(g.fakes.registry.calls('DELETE', `/api/v1/agents/acme/${body.metadata.name}`).length).toBeGreaterThan(0);
    expect((await request(g.app).get(`/api/v1/agents/${id}`).set('Authorization', writer)).status).toBe(404);
  });

  it("executes a task through the mesh and answers with the agent's reply", async () => {
    const created = await request(g.app)
      .post('/api/v1/agents')
      .set('Authorization', writer)
      .send({ manifest: manifest(), deployment: { endpoint: 'http://127.0.0.1:9/agent' } });
    const executed = await request(g.app)
      .post(`/api/v1/agents/${created.body.id}/execute`)
      .set('Authorization', writer)
      .send({ input: { text: 'hello' } });
    expect(executed.status).toBe(200);
    expect(executed.body).toMatchObject({ agentId: created.body.id, status: 'completed', output: { echo: { text: 'hello' } }, error: null });
    const sent = g.fakes.mesh.calls('POST', '/api/v1/messages').at(-1)!.body as { to: string; payload: { reply_to: string; input: unknown } };
    expect(sent.to).toBe(created.body.id);
    expect(sent.payload.input).toEqual({ text: 'hello' });
    // The reply URL is single-use: a second reply is refused.
    const replay = await request(g.app).post(new URL(sent.payload.reply_to).pathname).send({ output: 'again' });
    expect(replay.status).toBe(404);
    const forged = await request(g.app).post('/api/v1/replies/eyJmb28iOiJiYXIifQ.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA').send({ output: 'x' });
    expect(forged.status).toBe(404);

    g.fakes.agentReply = undefined;
    try {
      const silent = await request(g.app).post(`/api/v1/agents/${created.body.id}/execute`).set('Authorization', writer).send({ input: 'x', timeout_ms: 300 });
      expect(silent.status).toBe(504);
      expect(silent.body.error).toMatchObject({ code: 'upstream_timeout', details: { service: 'agent' } });
    } finally {
      g.fakes.agentReply = (payload) => ({ output: { echo: payload.input ?? payload.instruction } });
    }
    g.fakes.mesh.fail('POST', '^/api/v1/messages', 503);
    try {
      const down = await request(g.app).post(`/api/v1/agents/${created.body.id}/execute`).set('Authorization', writer).send({ input: 'x' });
      expect(down.status).toBe(502);
      expect(down.body.error.details).toMatchObject({ service: 'mesh' });
    } finally {
      g.fakes.mesh.failures.clear();
    }
  });

  it('refuses missing auth, missing permissions and bad input with the platform error shape', async () => {
    expect((await request(g.app).post('/api/v1/agents').send({ manifest: manifest() })).status).toBe(401);
    const reader = g.issuer.bearer(['agents:read']);
    const forbidden = await request(g.app).post('/api/v1/agents').set('Authorization', reader).send({ manifest: manifest() });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error).toMatchObject({ type: 'authorization_error', details: { required: 'agents:write' } });
    const invalid = await request(g.app)
      .post('/api/v1/agents')
      .set('Authorization', writer)
      .send({ manifest: { kind: 'Agent' } });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.type).toBe('validation_error');
    const noVersion = manifest();
    delete (noVersion.metadata as { version?: string }).version;
    expect((await request(g.app).post('/api/v1/agents').set('Authorization', writer).send({ manifest: noVersion })).status).toBe(400);
    expect((await request(g.app).post('/api/v1/agents').set('Authorization', writer).send({ manifest: manifest(), extra: 1 })).status).toBe(400);
    expect((await request(g.app).get('/api/v1/agents/not-a-uuid').set('Authorization', writer)).status).toBe(400);
    expect((await request(g.app).get('/api/v1/agents?limit=501').set('Authorization', writer)).status).toBe(400);
    expect(
      (
        await request(g.app)
          .post(`/api/v1/agents/${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}/execute`)
          .set('Authorization', writer)
          .send({ input: 1 })
      ).status,
    ).toBe(404);
    expect(
      (
        await request(g.app)
          .put(`/api/v1/agents/${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}`)
          .set('Authorization', writer)
          .send({})
      ).status,
    ).toBe(400);
  });
});
