import { fuzzOpenApi } from '@platform/testing';
import request from 'supertest';
import { bearer, startMesh, stopIssuer, type MeshInstance } from './harness';

interface Operation {
  security?: unknown[];
}

/** Which permission each REST operation needs (the README's table says the same). */
const permissionOf = (method: string, path: string): string => {
  // Export carries every sender's payloads: mesh:admin only.
  if (`${method} ${path}` === 'get /api/v1/messages/export') return 'mesh:admin';
  if (method === 'get') return 'mesh:read';
  if (
    ['post /api/v1/agents', 'delete /api/v1/agents/{agent_id}', 'put /api/v1/agents/{agent_id}/health', 'post /api/v1/messages'].includes(`${method} ${path}`)
  )
    return 'mesh:write';
  return 'mesh:admin';
};

describe('access to every endpoint, and input the API must refuse cleanly', () => {
  let mesh: MeshInstance;
  let paths: Record<string, Record<string, Operation>>;
  beforeAll(async () => {
    mesh = await startMesh();
    paths = (await request(mesh.app).get('/openapi.json')).body.paths;
  });
  afterAll(async () => {
    await mesh.stop();
    await stopIssuer();
  });

  const operations = () =>
    Object.entries(paths).flatMap(([path, methods]) =>
      Object.entries(methods)
        .filter(([, op]) => op.security)
        .map(([method]) => ({ method, path, url: path.replace('{agent_id}', 'some-agent') })),
    );

  it('answers 401 without a token and with a forged one, on every protected endpoint', async () => {
    const list = operations();
    expect(list.length).toBeGreaterThan(35);
    for (const { method, url } of list) {
      const missing = await request(mesh.app)[method as 'get'](url);
      expect([method, url, missing.status, missing.body.error?.type]).toEqual([method, url, 401, 'authentication_error']);
      const forged = await request(mesh.app)[method as 'get'](url).set('Authorization', 'Bearer eyJhbGciOiJSUzI1NiJ9.e30.c2ln');
      expect([method, url, forged.status]).toEqual([method, url, 401]);
    }
  });

  it('answers 403 naming the permission to a caller without it, on every protected endpoint', async () => {
    for (const { method, path, url } of operations()) {
      const needed = permissionOf(method, path);
      const others = ['mesh:read', 'mesh:write', 'mesh:admin'].filter((p) => p !== needed);
      const token = await bearer([...others, 'registry:*']);
      const send = request(mesh.app)[method as 'get'];
      const res = await send(url).set('Authorization', token);
      expect([method, url, res.status, res.body.error?.details?.required]).toEqual([method, url, 403, needed]);
    }
  });

  it('keeps /health, /api/v1/health and the OpenAPI document public', async () => {
    for (const route of ['/health', '/api/v1/health', '/health/live', '/openapi.json']) expect((await request(mesh.app).get(route)).status).toBe(200);
  });

  it('never answers 5xx or an error outside the platform shape to malformed input', async () => {
    const findings = await fuzzOpenApi(mesh.app, {
      authorization: await bearer(['*']),
      // State-changing operations on shared data or on the node itself are covered by their own tests.
      skip: [
        'post /api/v1/drain',
        'post /api/v1/cluster/leader/elect',
        'post /api/v1/grpc/connections/reset',
        'post /api/v1/health/reset',
        'delete /api/v1/queues/purge',
        'post /api/v1/messages/dedupe',
        'post /api/v1/queues/dlq/retry',
        'post /api/v1/agents/reregister',
        'post /api/v1/gc/run',
      ],
    });
    expect(findings).toEqual([]);
  });
});
