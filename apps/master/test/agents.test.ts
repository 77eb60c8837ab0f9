import { uniqueName } from '@platform/testing';
import request from 'supertest';
import { createAgent, manifest, startMaster, type Master } from './harness';

describe('agents', () => {
  let h: Master;
  beforeAll(async () => {
    h = await startMaster();
  });
  afterAll(() => h.stop());

  it('declares an agent from a valid manifest, reads it back and records the event', async () => {
    const namespace = uniqueName('ns');
    const body = manifest({ namespace, description: 'summarises tickets' });
    const created = await request(h.app)
      .post('/api/v1/agents')
      .set('Authorization', h.auth(['agents:write'], 'alice'))
      .send(body);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      origin: 'local',
      namespace,
      name: (body.metadata as { name: string }).name,
      version: '1.0.0',
      type: 'Agent',
      tier: 'tier_1_read',
      status: 'active',
      visibility: 'private',
      capabilities: ['network-outbound'],
      certification: null,
      manifest: body,
      createdBy: 'alice',
      owner: 'alice',
      team: null,
    });
    const read = await request(h.app)
      .get(`/api/v1/agents/${created.body.id}`)
      .set('Authorization', h.auth(['agents:read'], 'alice'));
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
    const events = await request(h.app)
      .get('/api/v1/monitoring/events?type=agent.created&limit=500')
      .set('Authorization', h.auth(['monitoring:read']));
    expect(events.body.items.some((event: { subject: string; actor: string }) => event.subject === created.body.id && event.actor === 'alice')).toBe(true);
  });

  it('answers an invalid manifest with 400 naming each JSON path, and stores nothing', async () => {
    const name = uniqueName('bad');
    const res = await request(h.app)
      .post('/api/v1/agents')
      .set('Authorization', h.auth(['agents:write']))
      .send({ apiVersion: 'std/v0.4.7', kind: 'Robot', metadata: { name, version: 'one' }, security: { tier: 'tier_9' } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'validation_error', code: 'invalid_request' });
    const paths = res.body.error.details.issues.map((issue: { path: string }) => issue.path);
    expect(paths).toEqual(expect.arrayContaining(['$.kind', '$.metadata.version', '$.security.tier']));
    const list = await request(h.app)
      .get(`/api/v1/agents?q=${name}`)
      .set('Authorization', h.auth(['agents:read']));
    expect(list.body.total).toBe(0);
  });

  it('refuses a body that is not a JSON object, and malformed JSON', async () => {
    const array = await request(h.app)
      .post('/api/v1/agents')
      .set('Authorization', h.auth(['agents:write']))
      .send([1, 2]);
    expect(array.status).toBe(400);
    const broken = await request(h.app)
      .post('/api/v1/agents')
      .set('Authorization', h.auth(['agents:write']))
      .set('content-type', 'application/json')
      .send('{"apiVersion":');
    expect(broken.status).toBe(400);
    expect(broken.body.error.type).toBe('validation_error');
  });

  it('answers 409 for a second agent of the same namespace and name', async () => {
    const body = manifest({ namespace: uniqueName('ns') });
    await createAgent(h, body);
    const again = await request(h.app)
      .post('/api/v1/agents')
      .set('Authorization', h.auth(['agents:write']))
      .send(body);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('conflict');
  });

  it('filters by type, capability, status and search text, sorts and pages with a total', async () => {
    const namespace = uniqueName('filter');
    await createAgent(h, manifest({ namespace, name: `${namespace}-a`, description: 'alpha helper' }));
    await createAgent(h, manifest({ namespace, name: `${namespace}-b`, kind: 'Task', security: { tier: 'tier_1_read', capabilities: { required: ['gpu'] } } }));
    await createAgent(h, manifest({ namespace, name: `${namespace}-c`, status: 'deprecated' }));
    const get = (query: string) =>
      request(h.app)
        .get(`/api/v1/agents?q=${namespace}&${query}`)
        .set('Authorization', h.auth(['agents:read']));
    const names = (res: request.Response) => res.body.items.map((agent: { name: string }) => agent.name);
    expect(names(await get('sort=name'))).toEqual([`${namespace}-a`, `${namespace}-b`, `${namespace}-c`]);
    expect(names(await get('sort=-name'))).toEqual([`${namespace}-c`, `${namespace}-b`, `${namespace}-a`]);
    expect(names(await get('type=Task'))).toEqual([`${namespace}-b`]);
    expect(names(await get('capability=gpu'))).toEqual([`${namespace}-b`]);
    expect(names(await get('status=deprecated'))).toEqual([`${namespace}-c`]);
    const page = await get('limit=1&offset=1&sort=name');
    expect(page.body).toMatchObject({ total: 3, limit: 1, offset: 1 });
    expect(names(page)).toEqual([`${namespace}-b`]);
    const byDescription = await request(h.app)
      .get(`/api/v1/agents?q=ALPHA%20helper`)
      .set('Authorization', h.auth(['agents:read']));
    expect(names(byDescription)).toContain(`${namespace}-a`);
  });

  it('refuses bad list parameters', async () => {
    for (const query of ['limit=0', 'limit=501', 'offset=-1', 'type=Robot', 'status=gone', 'sort=size', 'unknown=1']) {
      const res = await request(h.app)
        .get(`/api/v1/agents?${query}`)
        .set('Authorization', h.auth(['agents:read']));
      expect([query, res.status]).toEqual([query, 400]);
    }
  });

  it('replaces the manifest with PUT, validating it, and 404s an unknown agent', async () => {
    const agent = await createAgent(h);
    const next = { ...(agent.manifest as object), metadata: { ...(agent.manifest as { metadata: object }).metadata, version: '1.1.0' } };
    const put = await request(h.app)
      .put(`/api/v1/agents/${agent.id}`)
      .set('Authorization', h.auth(['agents:write']))
      .send(next);
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ id: agent.id, version: '1.1.0' });
    const bad = await request(h.app)
      .put(`/api/v1/agents/${agent.id}`)
      .set('Authorization', h.auth(['agents:write']))
      .send({ kind: 'Agent' });
    expect(bad.status).toBe(400);
    expect(
      (
        await request(h.app)
          .get(`/api/v1/agents/${agent.id}`)
          .set('Authorization', h.auth(['agents:read']))
      ).body.version,
    ).toBe('1.1.0');
    const missing = await request(h.app)
      .put('/api/v1/agents/00000000-0000-4000-8000-000000000000')
      .set('Authorization', h.auth(['agents:write']))
      .send(next);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('not_found');
  });

  it('deletes an agent (204, then 404) and answers 400 for an id that is not a UUID', async () => {
    const agent = await createAgent(h);
    const deleted = await request(h.app)
      .delete(`/api/v1/agents/${agent.id}`)
      .set('Authorization', h.auth(['agents:write']));
    expect(deleted.status).toBe(204);
    expect(
      (
        await request(h.app)
          .get(`/api/v1/agents/${agent.id}`)
          .set('Authorization', h.auth(['agents:read']))
      ).status,
    ).toBe(404);
    expect(
      (
        await request(h.app)
          .delete(`/api/v1/agents/${agent.id}`)
          .set('Authorization', h.auth(['agents:write']))
      ).status,
    ).toBe(404);
    expect(
      (
        await request(h.app)
          .get('/api/v1/agents/not-a-uuid')
          .set('Authorization', h.auth(['agents:read']))
      ).status,
    ).toBe(400);
  });

  it('needs a valid token and the agents permissions', async () => {
    expect((await request(h.app).get('/api/v1/agents')).status).toBe(401);
    const expired = await request(h.app)
      .get('/api/v1/agents')
      .set('Authorization', `Bearer ${h.issuer.token({ expiresInSeconds: -60 })}`);
    expect(expired.status).toBe(401);
    expect(expired.body.error.details.reason).toBe('token_expired');
    const readOnly = await request(h.app)
      .post('/api/v1/agents')
      .set('Authorization', h.auth(['agents:read']))
      .send(manifest());
    expect(readOnly.status).toBe(403);
    expect(readOnly.body.error).toMatchObject({ type: 'authorization_error', details: { required: 'agents:write' } });
    expect(
      (
        await request(h.app)
          .get('/api/v1/agents')
          .set('Authorization', h.auth(['registry:read']))
      ).status,
    ).toBe(403);
    expect(
      (
        await request(h.app)
          .delete('/api/v1/agents/00000000-0000-4000-8000-000000000000')
          .set('Authorization', h.auth(['agents:read']))
      ).status,
    ).toBe(403);
    expect(
      (
        await request(h.app)
          .get('/api/v1/agents')
          .set('Authorization', h.auth(['agents:*']))
      ).status,
    ).toBe(200);
  });
});
