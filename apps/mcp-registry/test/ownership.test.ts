import { uniqueName } from '@platform/testing';
import request from 'supertest';
import { startHarness, type Harness } from './fixtures';

const SECRET = 'Bearer secret-of-the-server';

/**
 * Connections have an owner (the subject of the token that registered them): only the owner, an
 * editor of its team or an `mcp:admin` changes, disconnects or replaces one; rows without an owner
 * only an admin. Another user who may not read it gets 404, as for a missing one (the shared rule;
 * before it, 403). Names are unique among connections that are not disconnected. The export never
 * hands credentials to readers.
 */
describe('ownership, unique names and the export of credentials', () => {
  let h: Harness;
  /** Another user with the same permissions as the harness's writer. */
  let stranger: string;
  let strangerAdmin: string;

  beforeAll(async () => {
    h = await startHarness();
    stranger = h.issuer.bearer(['mcp:read', 'mcp:write'], { sub: uniqueName('stranger') });
    strangerAdmin = h.issuer.bearer(['mcp:read', 'mcp:write', 'mcp:admin'], { sub: uniqueName('admin') });
  });
  afterAll(() => h.stop());

  const register = async (name = uniqueName('owned'), url = 'http://127.0.0.1:9/mcp') => {
    const res = await request(h.url)
      .post('/connections')
      .set('Authorization', h.writer)
      .send({ name, protocol: 'http', endpoint: { url, headers: { Authorization: SECRET } }, healthCheck: { enabled: false, interval: 60, timeout: 2000 } });
    expect(res.status).toBe(201);
    return res.body as { id: string; name: string };
  };
  const stored = (id: string) => h.db.connection.findUniqueOrThrow({ where: { id } });

  it('stores the subject that registered a connection as its owner', async () => {
    const { id } = await register();
    const sub = (JSON.parse(Buffer.from(h.writer.split('.')[1], 'base64url').toString()) as { sub: string }).sub;
    expect((await stored(id)).owner).toBe(sub);
  });

  it("refuses another user's PATCH and disconnect as not found, an import replace with 403, and lets the owner and an admin", async () => {
    const { id, name } = await register();
    const patch = await request(h.url)
      .patch(`/connections/${id}`)
      .set('Authorization', stranger)
      .send({ metadata: { hijacked: true } });
    // Not theirs to read: answered exactly as a connection that does not exist.
    expect(patch.status).toBe(404);
    expect(patch.body).toMatchObject({ error: { type: 'not_found_error', code: 'not_found', message: `No connection ${id}` }, requestId: expect.any(String) });
    const removal = await request(h.url).delete(`/connections/${id}`).set('Authorization', stranger);
    expect(removal.status).toBe(404);
    const replace = await request(h.url)
      .post('/registry/import')
      .set('Authorization', stranger)
      .send({
        onConflict: 'replace',
        connections: [{ name, type: 'server', protocol: 'http', endpoint: { url: 'http://attacker.example/mcp' }, capabilities: [] }],
      });
    expect(replace.status).toBe(403);
    expect(replace.body.error).toMatchObject({ type: 'authorization_error' });
    const row = await stored(id);
    expect(row).toMatchObject({ status: 'active', endpoint: { url: 'http://127.0.0.1:9/mcp', headers: { Authorization: SECRET } } });
    expect(row.metadata).not.toHaveProperty('hijacked');

    await request(h.url)
      .patch(`/connections/${id}`)
      .set('Authorization', h.writer)
      .send({ metadata: { mine: true } })
      .expect(200);
    await request(h.url).patch(`/connections/${id}`).set('Authorization', strangerAdmin).send({ capacity: 3 }).expect(200);
    expect(await stored(id)).toMatchObject({ metadata: { mine: true }, capacity: 3 });
    await request(h.url).delete(`/connections/${id}`).set('Authorization', h.writer).expect(200);
  });

  it('lets only an admin read or change a connection registered before owners existed', async () => {
    const { id } = await register();
    await h.db.connection.update({ where: { id }, data: { owner: null } });
    // Admin-only under the shared rule: to anyone else it is not there (before the rule, a 403 to writers).
    const byWriter = await request(h.url).patch(`/connections/${id}`).set('Authorization', h.writer).send({ capacity: 2 });
    expect(byWriter.status).toBe(404);
    await request(h.url).get(`/connections/${id}`).set('Authorization', h.reader).expect(404);
    await request(h.url).delete(`/connections/${id}`).set('Authorization', h.writer).expect(404);
    await request(h.url).get(`/connections/${id}`).set('Authorization', h.admin).expect(200);
    await request(h.url).patch(`/connections/${id}`).set('Authorization', h.admin).send({ capacity: 2 }).expect(200);
    await request(h.url).delete(`/connections/${id}`).set('Authorization', h.admin).expect(200);
  });

  it('registers one of parallel registrations of one name, and answers 409 to the rest', async () => {
    const name = uniqueName('raced');
    const body = { name, protocol: 'http', endpoint: { url: 'http://127.0.0.1:9/mcp' }, healthCheck: { enabled: false, interval: 60, timeout: 2000 } };
    const answers = await Promise.all(Array.from({ length: 8 }, () => request(h.url).post('/connections').set('Authorization', h.writer).send(body)));
    expect(answers.map((res) => res.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
    for (const res of answers.filter((answer) => answer.status === 409))
      expect(res.body).toMatchObject({ error: { type: 'conflict_error', code: 'conflict' }, requestId: expect.any(String) });
    expect(await h.db.connection.count({ where: { name, status: { not: 'disconnected' } } })).toBe(1);

    // Disconnected, the name is free again; reactivating the old one is then a conflict.
    const first = answers.find((res) => res.status === 201)!.body as { id: string };
    await request(h.url).delete(`/connections/${first.id}`).set('Authorization', h.writer).expect(200);
    await request(h.url).post('/connections').set('Authorization', h.writer).send(body).expect(201);
    const reactivated = await request(h.url).patch(`/connections/${first.id}`).set('Authorization', h.writer).send({ status: 'active' });
    expect(reactivated.status).toBe(409);
    expect(reactivated.body.error).toMatchObject({ type: 'conflict_error' });
  });

  it('exports header values redacted to readers, as stored only to admins who ask, and says which', async () => {
    const { name } = await register();
    const find = (body: { connections: Array<{ name: string; endpoint: unknown }> }) => body.connections.find((c) => c.name === name);

    const redacted = await request(h.url).get('/registry/export').set('Authorization', h.reader);
    expect(redacted.status).toBe(200);
    expect(redacted.body.secretsIncluded).toBe(false);
    expect(find(redacted.body)?.endpoint).toEqual({ url: 'http://127.0.0.1:9/mcp', headers: { Authorization: '[redacted]' } });
    expect(JSON.stringify(redacted.body)).not.toContain(SECRET);

    const refused = await request(h.url).get('/registry/export').query({ includeSecrets: 'true' }).set('Authorization', h.writer);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ type: 'authorization_error', details: { required: 'mcp:admin' } });

    const full = await request(h.url).get('/registry/export').query({ includeSecrets: 'true' }).set('Authorization', h.admin);
    expect(full.status).toBe(200);
    expect(full.body.secretsIncluded).toBe(true);
    expect(find(full.body)?.endpoint).toEqual({ url: 'http://127.0.0.1:9/mcp', headers: { Authorization: SECRET } });

    // A redacted export imported back over the connection keeps the credential it does not carry.
    const entry = find(redacted.body)!;
    const back = await request(h.url)
      .post('/registry/import')
      .set('Authorization', h.writer)
      .send({ onConflict: 'replace', connections: [{ ...entry, capabilities: ['after-import'] }] });
    expect(back.status).toBe(200);
    expect(back.body.updated).toEqual([{ id: expect.any(String), name }]);
    const row = await h.db.connection.findFirstOrThrow({ where: { name, status: { not: 'disconnected' } } });
    expect(row).toMatchObject({ declaredCapabilities: ['after-import'], endpoint: { headers: { Authorization: SECRET } } });
  });
});
