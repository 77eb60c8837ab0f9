import * as grpc from '@grpc/grpc-js';
import { startService, type StartOptions } from '@platform/service-kit';
import { TestIssuer, testDatabaseUrl, testRedisUrl, uniqueName } from '@platform/testing';
import request from 'supertest';
import { protos } from '../src/grpc/proto';
import { meshService } from '../src/service';

const bootMesh = (options: StartOptions) => startService(meshService, options);
export type MeshInstance = Awaited<ReturnType<typeof bootMesh>> & {
  grpcPort: number;
  cluster: string;
};

let issuer: Promise<TestIssuer> | undefined;
export const testIssuer = () => (issuer ??= new TestIssuer().start());

/** Stops the shared token issuer (afterAll of each file). */
export async function stopIssuer(): Promise<void> {
  const started = issuer;
  issuer = undefined;
  await (await started)?.stop();
}

/** Boots a real mesh node (REST on a free port, gRPC on a free port) in its own cluster. */
export async function startMesh(env: Record<string, string> = {}): Promise<MeshInstance> {
  const cluster = env.MESH_CLUSTER ?? uniqueName('mesh');
  const svc = await bootMesh({
    env: {
      PORT: '0',
      GRPC_PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      DATABASE_URL: testDatabaseUrl,
      REDIS_URL: testRedisUrl,
      OUTBOUND_ALLOW_PRIVATE: 'true',
      MESH_RETRY_BACKOFF_MS: '50',
      MESH_CLUSTER: cluster,
      ...env,
    },
    verifier: (await testIssuer()).verifier(),
  });
  const health = await request(svc.app).get('/health');
  return Object.assign(svc, { grpcPort: health.body.grpc.port as number, cluster });
}

/** The one user the tests act as unless they say otherwise: what it registers, it reads and changes. */
export const TEST_USER = uniqueName('mesh-user');

export async function bearer(
  permissions: string[],
  options: { sub?: string; teams?: Array<{ id: string; role: 'viewer' | 'editor' | 'admin' }> } = {},
): Promise<string> {
  return (await testIssuer()).bearer(permissions, { sub: TEST_USER, ...options });
}

export interface MeshClient extends grpc.Client {
  Register: (req: unknown, md: grpc.Metadata, cb: (err: grpc.ServiceError | null, res: Record<string, unknown>) => void) => void;
  Heartbeat: (req: unknown, md: grpc.Metadata, cb: (err: grpc.ServiceError | null, res: Record<string, unknown>) => void) => void;
  Send: (req: unknown, md: grpc.Metadata, cb: (err: grpc.ServiceError | null, res: Record<string, unknown>) => void) => void;
  Ack: (req: unknown, md: grpc.Metadata, cb: (err: grpc.ServiceError | null, res: Record<string, unknown>) => void) => void;
  Subscribe: (req: unknown, md: grpc.Metadata) => grpc.ClientReadableStream<Delivery>;
}

export interface Delivery {
  id: string;
  message_id: string;
  from: string;
  capability: string;
  payload_json: string;
  attempt: number;
  control: string;
}

/** A real grpc-js client of platform.mesh.v1.Mesh, as an agent would use it. */
export function meshClient(port: number): MeshClient {
  return new (protos().Mesh)(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as unknown as MeshClient;
}

export async function metadata(permissions: string[] = ['mesh:write'], options: Parameters<typeof bearer>[1] = {}): Promise<grpc.Metadata> {
  const md = new grpc.Metadata();
  md.set('authorization', await bearer(permissions, options));
  return md;
}

/** Promisifies a unary call. */
export function call<T = Record<string, unknown>>(
  client: MeshClient,
  method: 'Register' | 'Heartbeat' | 'Send' | 'Ack',
  req: unknown,
  md: grpc.Metadata,
): Promise<T> {
  return new Promise((resolve, reject) => client[method](req, md, (error, response) => (error ? reject(error) : resolve(response as T))));
}

/** Collects the deliveries of a Subscribe stream. */
export function subscribe(client: MeshClient, agentId: string, md: grpc.Metadata) {
  const stream = client.Subscribe({ agent_id: agentId }, md);
  const received: Delivery[] = [];
  let ended: grpc.ServiceError | undefined;
  stream.on('data', (delivery: Delivery) => received.push(delivery));
  stream.on('error', (error: grpc.ServiceError) => (ended = error));
  return { stream, received, ended: () => ended };
}
