import * as grpc from '@grpc/grpc-js';
import { eventually, uniqueName } from '@platform/testing';
import { HealthImplementation } from 'grpc-health-check';
import net from 'node:net';
import request from 'supertest';
import { bearer, startMesh, stopIssuer, type MeshInstance } from './harness';

/** A TCP port that counts who connects to it (nothing should). */
async function countingPort(): Promise<{ port: number; connections: () => number; close: () => Promise<void> }> {
  let connections = 0;
  const server = net.createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    connections: () => connections,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function grpcHealthServer(): Promise<{ port: number; close: () => void }> {
  const server = new grpc.Server();
  new HealthImplementation({ '': 'SERVING' }).addToServer(server);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
  );
  return { port, close: () => server.forceShutdown() };
}

const checks = { MESH_HEALTH_CHECK_INTERVAL_MS: '100', MESH_HEALTH_CHECK_TIMEOUT_MS: '500' };

async function lastCheck(mesh: MeshInstance, id: string): Promise<{ kind: string; status: string; output: string } | undefined> {
  const history = await request(mesh.app)
    .get(`/api/v1/agents/${id}/health/history`)
    .set('Authorization', await bearer(['mesh:read']));
  return history.body.checks?.[0];
}

async function register(mesh: MeshInstance, check: Record<string, unknown>): Promise<string> {
  const id = uniqueName('guarded');
  const res = await request(mesh.app)
    .post('/api/v1/agents')
    .set('Authorization', await bearer(['mesh:write']))
    .send({ id, name: 'guarded', check });
  expect(res.status).toBe(201);
  return id;
}

describe('gRPC health-check targets go through the outbound guard', () => {
  afterAll(() => stopIssuer());

  it('refuses private targets as HTTP targets are refused, without connecting, unless private addresses are allowed', async () => {
    const mesh = await startMesh({ ...checks, OUTBOUND_ALLOW_PRIVATE: 'false' });
    const listening = await countingPort();
    const closed = await countingPort();
    await closed.close();
    const serving = await grpcHealthServer();
    try {
      const targets = [
        `127.0.0.1:${listening.port}`,
        `127.0.0.1:${closed.port}`,
        `127.0.0.1:${serving.port}`,
        '169.254.169.254:80',
        `localhost:${listening.port}`,
      ];
      const grpcAgents = await Promise.all(targets.map((target) => register(mesh, { type: 'grpc', target })));
      const httpAgent = await register(mesh, { type: 'http', target: `http://127.0.0.1:${listening.port}/health` });

      const results = await eventually(async () => {
        const all = await Promise.all([...grpcAgents, httpAgent].map((id) => lastCheck(mesh, id)));
        return all.every(Boolean) && all;
      });
      // One answer whatever listens there: no port scan through the mesh.
      expect(results).toEqual([
        {
          kind: 'grpc',
          status: 'critical',
          output: `127.0.0.1:${listening.port} is a private address`,
          latency_ms: expect.any(Number),
          checked_at: expect.any(String),
        },
        {
          kind: 'grpc',
          status: 'critical',
          output: `127.0.0.1:${closed.port} is a private address`,
          latency_ms: expect.any(Number),
          checked_at: expect.any(String),
        },
        {
          kind: 'grpc',
          status: 'critical',
          output: `127.0.0.1:${serving.port} is a private address`,
          latency_ms: expect.any(Number),
          checked_at: expect.any(String),
        },
        { kind: 'grpc', status: 'critical', output: '169.254.169.254:80 is a private address', latency_ms: expect.any(Number), checked_at: expect.any(String) },
        { kind: 'grpc', status: 'critical', output: 'localhost resolves to a private address', latency_ms: expect.any(Number), checked_at: expect.any(String) },
        {
          kind: 'http',
          status: 'critical',
          output: `127.0.0.1:${listening.port} is a private address`,
          latency_ms: expect.any(Number),
          checked_at: expect.any(String),
        },
      ]);
      expect(listening.connections()).toBe(0);
    } finally {
      serving.close();
      await listening.close();
      await mesh.stop();
    }
  });

  it('checks a private gRPC target when OUTBOUND_ALLOW_PRIVATE allows it', async () => {
    const mesh = await startMesh({ ...checks, OUTBOUND_ALLOW_PRIVATE: 'true' });
    const serving = await grpcHealthServer();
    try {
      const id = await register(mesh, { type: 'grpc', target: `127.0.0.1:${serving.port}` });
      await eventually(async () => (await lastCheck(mesh, id))?.output === 'SERVING');
    } finally {
      serving.close();
      await mesh.stop();
    }
  });
});
