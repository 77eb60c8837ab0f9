import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { protoPath as healthProtoPath } from 'grpc-health-check';
import path from 'node:path';

/** The mesh's own .proto, next to the app (apps/mesh/proto). */
export const MESH_PROTO = path.join(__dirname, '../../proto/platform/mesh/v1/mesh.proto');
export const MESH_SERVICE = 'platform.mesh.v1.Mesh';
export const HEALTH_SERVICE = 'grpc.health.v1.Health';

const options: protoLoader.Options = { keepCase: true, longs: Number, enums: String, defaults: true, oneofs: true };

interface Loaded {
  Mesh: grpc.ServiceClientConstructor;
  Health: grpc.ServiceClientConstructor;
}

let loaded: Loaded | undefined;

/** The Mesh and Health service definitions (and client constructors), loaded once. */
export function protos(): Loaded {
  if (loaded) return loaded;
  const meshDefinition = grpc.loadPackageDefinition(protoLoader.loadSync(MESH_PROTO, options)) as unknown as {
    platform: { mesh: { v1: { Mesh: grpc.ServiceClientConstructor } } };
  };
  const healthDefinition = grpc.loadPackageDefinition(protoLoader.loadSync(healthProtoPath, options)) as unknown as {
    grpc: { health: { v1: { Health: grpc.ServiceClientConstructor } } };
  };
  loaded = { Mesh: meshDefinition.platform.mesh.v1.Mesh, Health: healthDefinition.grpc.health.v1.Health };
  return loaded;
}
