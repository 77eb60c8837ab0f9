import * as grpc from '@grpc/grpc-js';
import { cuttableProxy, eventually, testRedisUrl, uniqueName, type CuttableProxy } from '@platform/testing';
import { bearer, call, meshClient, metadata, startMesh, stopIssuer, type MeshClient, type MeshInstance } from './harness';

/** Redis that goes silent, or whose connections drop bytes while staying open (issue 27). */
describe('the mesh with Redis silent or losing bytes', () => {
  let proxy: CuttableProxy;
  let mesh: MeshInstance;
  let client: MeshClient;
  let write: string;
  let agentId: string;

  beforeAll(async () => {
    proxy = await cuttableProxy(testRedisUrl, 6379);
    mesh = await startMesh({ REDIS_URL: proxy.url, MESH_REDIS_TIMEOUT_MS: '1000' });
    client = meshClient(mesh.grpcPort);
    write = await bearer(['mesh:read', 'mesh:write']);
    agentId = uniqueName('redis-fault');
    const registered = await fetch(`${mesh.url}/api/v1/agents`, {
      method: 'POST',
      headers: { authorization: write, 'content-type': 'application/json' },
      body: JSON.stringify({ id: agentId, name: 'fault' }),
    });
    expect(registered.status).toBe(201);
  });
  afterAll(async () => {
    await proxy.restore();
    client.close();
    await mesh.stop();
    await proxy.close();
    await stopIssuer();
  });

  // A hang fails the test through the abort; an answer must come well before it.
  const send = () =>
    fetch(`${mesh.url}/api/v1/messages`, {
      method: 'POST',
      headers: { authorization: write, 'content-type': 'application/json' },
      body: JSON.stringify({ to: agentId, payload: { at: Date.now() } }),
      signal: AbortSignal.timeout(15_000),
    });
  const expectCacheDown = async () => {
    const res = await send();
    const body = (await res.json()) as { error: { type: string; message: string; details?: { dependency?: string } } };
    expect([res.status, body.error.type, body.error.details?.dependency]).toEqual([503, 'api_error', 'cache']);
    expect(body.error.message).toMatch(/Redis/);
  };
  const recovered = () => eventually(async () => (await send()).status === 202 && (await fetch(`${mesh.url}/health`)).status === 200, 30_000, 200);

  it('answers 503 naming the cache while Redis is silent (the probe waited 40 s), and recovers', async () => {
    expect((await send()).status).toBe(202);
    proxy.silence();
    await expectCacheDown();
    const health = await fetch(`${mesh.url}/health`, { signal: AbortSignal.timeout(15_000) });
    expect([health.status, ((await health.json()) as { dependencies: { cache: string } }).dependencies.cache]).toEqual([503, 'down']);
    await expect(call(client, 'Send', { to: agentId, payload_json: '1' }, await metadata())).rejects.toMatchObject({ code: grpc.status.UNAVAILABLE });
    await proxy.restore();
    await recovered();
  }, 90_000);

  it('replaces connections that drop bytes but stay open (the probe stayed 503 after Redis came back)', async () => {
    expect((await send()).status).toBe(202);
    proxy.lose();
    await expectCacheDown();
    await proxy.restore();
    await recovered();
    // Deliveries and notices work again too: a message sent now is queued and read back.
    const sent = await send();
    expect(sent.status).toBe(202);
  }, 90_000);
});
