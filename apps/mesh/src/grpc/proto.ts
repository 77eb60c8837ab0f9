import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { protoPath as healthProtoPath } from 'grpc-health-check';
import { existsSync } from 'node:fs';
import path from 'node:path';

const RELATIVE = 'platform/mesh/v1/mesh.proto';

/**
 * The mesh's own .proto (apps/mesh/proto): next to the sources, next to a bundle (dist/apps/mesh/proto),
 * or under the working directory of a workspace checkout; MESH_PROTO_DIR names another folder.
 */
export function meshProtoPath(): string {
  const candidates = [
    ...(process.env.MESH_PROTO_DIR ? [path.join(process.env.MESH_PROTO_DIR, RELATIVE)] : []),
    path.join(__dirname, '../../proto', RELATIVE),
    path.join(__dirname, 'proto', RELATIVE),
    path.join(process.cwd(), 'apps/mesh/proto', RELATIVE),
  ];
  const found = candidates.find((candidate) => existsSync(candidate));
  if (!found) throw new Error(`mesh.proto not found (looked in ${candidates.join(', ')}); set MESH_PROTO_DIR`);
  return found;
}

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
  const meshDefinition = grpc.loadPackageDefinition(protoLoader.loadSync(meshProtoPath(), options)) as unknown as {
    platform: { mesh: { v1: { Mesh: grpc.ServiceClientConstructor } } };
  };
  const healthDefinition = grpc.loadPackageDefinition(protoLoader.loadSync(healthProtoPath, options)) as unknown as {
    grpc: { health: { v1: { Health: grpc.ServiceClientConstructor } } };
  };
  loaded = { Mesh: meshDefinition.platform.mesh.v1.Mesh, Health: healthDefinition.grpc.health.v1.Health };
  return loaded;
}
