import { eventually, uniqueName } from '@platform/testing';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { bearer, call, meshClient, metadata, startMesh, stopIssuer, subscribe, type MeshInstance } from './harness';

describe('the mesh service', () => {
  let mesh: MeshInstance;
  beforeAll(async () => {
    mesh = await startMesh();
  });
  afterAll(async () => {
    await mesh.stop();
    await stopIssuer();
  });

  it('documents every mesh row of endpoints.tsv in its OpenAPI document', async () => {
    const tsv = path.join(__dirname, '../../../docs/spec/endpoints.tsv');
    expect(existsSync(tsv)).toBe(true);
    const rows = readFileSync(tsv, 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('mesh\t'))
      .map((line) => line.split('\t'))
      .filter(([, method]) => method !== 'GRPC');
    expect(rows.length).toBeGreaterThan(30);
    const doc = (await request(mesh.app).get('/openapi.json')).body;
    expect(doc.info).toMatchObject({ title: 'Agent Mesh API', version: '1.0.0' });
    for (const [, method, route] of rows) expect([method, route, Boolean(doc.paths[route]?.[method.toLowerCase()])]).toEqual([method, route, true]);
    for (const extra of [
      ['post', '/api/v1/agents'],
      ['delete', '/api/v1/agents/{agent_id}'],
      ['post', '/api/v1/messages'],
    ])
      expect(doc.paths[extra[1]]?.[extra[0]]).toBeDefined();
    expect(doc.paths['/api/v1/messages/export'].get.responses['200'].content).toHaveProperty('application/x-ndjson');
  });

  it('answers /health and /api/v1/health with the node, the gRPC port and its dependencies', async () => {
    for (const route of ['/health', '/api/v1/health']) {
      const res = await request(mesh.app).get(route);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'healthy', dependencies: { database: 'up', cache: 'up' }, grpc: { port: mesh.grpcPort, status: 'SERVING' } });
    }
    expect((await request(mesh.app).get('/health/ready')).status).toBe(200);
  });

  it('lets a real gRPC agent register, subscribe, receive a REST message and acknowledge it', async () => {
    const client = meshClient(mesh.grpcPort);
    const md = await metadata();
    const id = uniqueName('agent');
    const capability = uniqueName('cap');
    const registered = await call(
      client,
      'Register',
      { id, name: 'Echo', namespace: 'tests', capabilities: [capability], check_type: 'ttl', ttl_ms: 60_000 },
      md,
    );
    expect(registered).toMatchObject({ id, status: 'passing', ejected: false, capabilities: [capability] });
    const sub = subscribe(client, id, md);
    await eventually(
      async () =>
        (
          await request(mesh.app)
            .get(`/api/v1/agents?capability=${capability}`)
            .set('Authorization', await bearer(['mesh:read']))
        ).body.agents?.[0]?.subscribed,
    );

    const sent = await request(mesh.app)
      .post('/api/v1/messages')
      .set('Authorization', await bearer(['mesh:write']))
      .send({ capability, payload: { hello: 'world' }, from: 'test' });
    expect(sent.status).toBe(202);
    expect(sent.body).toMatchObject({ agent_id: id, state: 'queued', duplicate: false });
    const delivery = await eventually(() => sub.received.find((d) => d.id === sent.body.id));
    expect(JSON.parse(delivery.payload_json)).toEqual({ hello: 'world' });
    expect(delivery).toMatchObject({ from: 'test', capability, attempt: 1 });
    expect(await call(client, 'Ack', { agent_id: id, id: delivery.id, ok: true }, md)).toEqual({ acknowledged: true });

    const read = await bearer(['mesh:read']);
    const stored = await eventually(async () => {
      const res = await request(mesh.app).get(`/api/v1/messages?agent_id=${id}`).set('Authorization', read);
      return res.body.messages?.[0]?.state === 'acked' && res.body.messages[0];
    });
    expect(stored).toMatchObject({ id: sent.body.id, payload: { hello: 'world' }, attempts: 1 });
    // Times are stored in UTC: expiry a day ahead (the default TTL), acknowledged just now.
    expect(Math.abs(Date.parse(stored.expires_at) - Date.now() - 86_400_000)).toBeLessThan(60_000);
    expect(Math.abs(Date.parse(stored.acked_at) - Date.now())).toBeLessThan(60_000);
    expect(Math.abs(Date.parse(stored.created_at) - Date.now())).toBeLessThan(60_000);

    // Send over gRPC too.
    const viaGrpc = await call(client, 'Send', { to: id, payload_json: '{"n":2}' }, md);
    const second = await eventually(() => sub.received.find((d) => d.id === viaGrpc.id));
    await call(client, 'Ack', { agent_id: id, id: second.id, ok: true }, md);
    sub.stream.cancel();
    client.close();
  });
});
