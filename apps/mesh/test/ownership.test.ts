import * as grpc from '@grpc/grpc-js';
import { eventually, uniqueName } from '@platform/testing';
import request from 'supertest';
import { call, meshClient, startMesh, stopIssuer, subscribe, testIssuer, type MeshClient, type MeshInstance } from './harness';

/** What the probe of issue 27 did as bob to alice's agent, each refused now. */
describe("bob and alice's agent", () => {
  let mesh: MeshInstance;
  let client: MeshClient;
  let alice: string;
  let bob: string;
  let carol: string;
  let admin: string;
  const team = uniqueName('team');
  const users = { alice: uniqueName('alice'), bob: uniqueName('bob'), carol: uniqueName('carol') };
  const everyday = ['mesh:read', 'mesh:write'];

  beforeAll(async () => {
    mesh = await startMesh();
    client = meshClient(mesh.grpcPort);
    const issuer = await testIssuer();
    alice = issuer.bearer(everyday, { sub: users.alice, teams: [{ id: team, role: 'editor' }] });
    bob = issuer.bearer(everyday, { sub: users.bob });
    carol = issuer.bearer(everyday, { sub: users.carol });
    admin = issuer.bearer([...everyday, 'mesh:admin'], { sub: uniqueName('operator') });
  });
  afterAll(async () => {
    client.close();
    await mesh.stop();
    await stopIssuer();
  });

  const md = (auth: string) => {
    const metadata = new grpc.Metadata();
    metadata.set('authorization', auth);
    return metadata;
  };
  const register = (auth: string, body: Record<string, unknown>) => request(mesh.app).post('/api/v1/agents').set('Authorization', auth).send(body);
  const agentOf = async (id: string) => mesh.infra.db.agent.findUnique({ where: { id } });
  const aliceAgent = async (extra: Record<string, unknown> = {}) => {
    const id = uniqueName('alice-agent');
    const res = await register(alice, { id, name: 'alice', endpoint: 'http://alice.example/inbox', ...extra });
    expect([res.status, res.body.owner, res.body.team]).toEqual([201, users.alice, extra.team ?? null]);
    return id;
  };

  it('records who registered an agent, and keeps it through a re-registration by its owner', async () => {
    const id = await aliceAgent();
    const again = await register(alice, { id, name: 'alice v2' });
    expect([again.status, again.body.owner, again.body.name]).toEqual([201, users.alice, 'alice v2']);
  });

  it('does not let bob re-register her agent with his endpoint (the probe got 201)', async () => {
    const id = await aliceAgent();
    const taken = await register(bob, { id, name: 'bob', endpoint: 'http://bob.example/steal' });
    expect([taken.status, taken.body.error?.code, taken.body.error?.message]).toEqual([404, 'not_found', `No agent ${id}`]);
    expect(await agentOf(id)).toMatchObject({ owner: users.alice, endpoint: 'http://alice.example/inbox', name: 'alice' });
    // The same over gRPC.
    await expect(call(client, 'Register', { id, name: 'bob', endpoint: 'http://bob.example/steal' }, md(bob))).rejects.toMatchObject({
      code: grpc.status.NOT_FOUND,
    });
    expect((await agentOf(id))?.endpoint).toBe('http://alice.example/inbox');
  });

  it('does not let bob report her health, set it critical or delete it (the probe got 200 and 204)', async () => {
    const id = await aliceAgent();
    const critical = await request(mesh.app).put(`/api/v1/agents/${id}/health`).set('Authorization', bob).send({ status: 'critical' });
    expect(critical.status).toBe(404);
    await expect(call(client, 'Heartbeat', { agent_id: id, status: 'critical' }, md(bob))).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
    expect((await request(mesh.app).delete(`/api/v1/agents/${id}`).set('Authorization', bob)).status).toBe(404);
    expect(await agentOf(id)).toMatchObject({ status: 'passing', owner: users.alice });
    expect((await request(mesh.app).get(`/api/v1/agents/${id}/health/history`).set('Authorization', bob)).status).toBe(404);
    // Her own report and deletion go through.
    expect((await request(mesh.app).put(`/api/v1/agents/${id}/health`).set('Authorization', alice).send({ status: 'warning' })).status).toBe(200);
    expect((await request(mesh.app).delete(`/api/v1/agents/${id}`).set('Authorization', alice)).status).toBe(204);
  });

  it('does not let bob subscribe as her agent over gRPC nor receive her messages, nor settle them', async () => {
    const id = await aliceAgent();
    const stolen = subscribe(client, id, md(bob));
    await eventually(() => stolen.ended());
    expect(stolen.ended()?.code).toBe(grpc.status.NOT_FOUND);
    const sent = await request(mesh.app)
      .post('/api/v1/messages')
      .set('Authorization', carol)
      .send({ to: id, payload: { for: 'alice' } });
    expect(sent.status).toBe(202);
    const hers = subscribe(client, id, md(alice));
    const delivery = await eventually(() => hers.received.find((d) => d.id === sent.body.id));
    expect(stolen.received).toEqual([]);
    // bob cannot acknowledge (or reject) what her stream holds.
    await expect(call(client, 'Ack', { agent_id: id, id: delivery.id, ok: false, error: 'bob says no' }, md(bob))).rejects.toMatchObject({
      code: grpc.status.NOT_FOUND,
    });
    expect(await call(client, 'Ack', { agent_id: id, id: delivery.id, ok: true }, md(alice))).toEqual({ acknowledged: true });
    hers.stream.cancel();
  });

  it('shows a payload to its sender and to whoever may read the recipient agent, not to bob (the probe read every payload)', async () => {
    const id = await aliceAgent({ team });
    const sent = await request(mesh.app)
      .post('/api/v1/messages')
      .set('Authorization', carol)
      .send({ to: id, payload: { secret: 42 } });
    expect(sent.status).toBe(202);
    const viewer = (await testIssuer()).bearer(['mesh:read'], { sub: uniqueName('viewer'), teams: [{ id: team, role: 'viewer' }] });
    const seen = async (auth: string) =>
      (
        (await request(mesh.app).get(`/api/v1/messages?agent_id=${id}`).set('Authorization', auth)).body.messages as Array<{ id: string; payload: unknown }>
      ).map((m) => [m.id, m.payload]);
    expect(await seen(bob)).toEqual([]);
    for (const reader of [alice, carol, viewer, admin]) expect(await seen(reader)).toEqual([[sent.body.id, { secret: 42 }]]);
    const mine = await request(mesh.app).get(`/api/v1/messages?message_id=${sent.body.message_id}`).set('Authorization', carol);
    expect(mine.body.messages).toEqual([expect.objectContaining({ id: sent.body.id, sent_by: users.carol })]);
  });

  it('exports payloads to mesh:admin only (the probe exported them with mesh:read)', async () => {
    const id = await aliceAgent();
    await request(mesh.app).post('/api/v1/messages').set('Authorization', alice).send({ to: id, payload: 'p' });
    const refused = await request(mesh.app).get(`/api/v1/messages/export?agent_id=${id}`).set('Authorization', bob);
    expect([refused.status, refused.body.error?.details?.required]).toEqual([403, 'mesh:admin']);
    const exported = await request(mesh.app).get(`/api/v1/messages/export?agent_id=${id}`).set('Authorization', admin);
    expect(exported.status).toBe(200);
    expect(exported.text.trim().split('\n')).toHaveLength(1);
  });

  it('lets an editor of her team change it, a viewer only read it (403), and shares only with a team one edits', async () => {
    const id = await aliceAgent({ team });
    const issuer = await testIssuer();
    const editor = issuer.bearer(everyday, { sub: uniqueName('editor'), teams: [{ id: team, role: 'editor' }] });
    const viewer = issuer.bearer(everyday, { sub: uniqueName('viewer'), teams: [{ id: team, role: 'viewer' }] });
    expect((await request(mesh.app).get(`/api/v1/agents/${id}/health/history`).set('Authorization', viewer)).status).toBe(200);
    const denied = await request(mesh.app).put(`/api/v1/agents/${id}/health`).set('Authorization', viewer).send({ status: 'critical' });
    expect([denied.status, denied.body.error?.details?.reason]).toEqual([403, 'not_owner']);
    expect((await register(editor, { id, name: 'edited' })).body).toMatchObject({ owner: users.alice, team, name: 'edited' });
    const notMine = await register(bob, { name: 'bob', team });
    expect([notMine.status, notMine.body.error?.details?.reason]).toEqual([403, 'not_team_editor']);
  });

  it('leaves an agent registered before owners were recorded to mesh:admin', async () => {
    const id = uniqueName('legacy');
    await mesh.infra.db.agent.create({ data: { id, name: 'legacy', namespace: 'default', capabilities: [] } });
    for (const who of [alice, bob]) expect((await request(mesh.app).get(`/api/v1/agents/${id}/health/history`).set('Authorization', who)).status).toBe(404);
    expect((await register(alice, { id, name: 'mine now' })).status).toBe(404);
    expect((await request(mesh.app).get(`/api/v1/agents/${id}/health/history`).set('Authorization', admin)).status).toBe(200);
    expect((await request(mesh.app).delete(`/api/v1/agents/${id}`).set('Authorization', admin)).status).toBe(204);
  });

  it("gives an agent a service registers with a user's delegated token to the user", async () => {
    const delegated = (await testIssuer()).bearer(['mesh:write', 'mesh:read'], { sub: users.alice, act: { sub: 'service:gateway', client_id: 'gateway' } });
    const res = await register(delegated, { name: 'published' });
    expect([res.status, res.body.owner]).toEqual([201, users.alice]);
    expect((await request(mesh.app).get(`/api/v1/agents/${res.body.id}/health/history`).set('Authorization', alice)).status).toBe(200);
  });
});
