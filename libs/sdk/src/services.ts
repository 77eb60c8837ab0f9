import type { paths as AuthPaths } from './generated/auth';
import type { paths as GatewayPaths } from './generated/gateway';
import type { paths as LocalModelsPaths } from './generated/local-models';
import type { paths as MasterPaths } from './generated/master';
import type { paths as McpRegistryPaths } from './generated/mcp-registry';
import type { paths as MeshPaths } from './generated/mesh';
import type { paths as RegistryPaths } from './generated/registry';
import type { paths as TracingPaths } from './generated/tracing';
import type { paths as WorkersPaths } from './generated/workers';
import type { paths as WorkflowEnginePaths } from './generated/workflow-engine';

/** Each service's paths, as its own OpenAPI document (libs/sdk/openapi/<service>.json) declares them. */
export interface ServicePaths {
  gateway: GatewayPaths;
  auth: AuthPaths;
  registry: RegistryPaths;
  master: MasterPaths;
  mesh: MeshPaths;
  workers: WorkersPaths;
  workflowEngine: WorkflowEnginePaths;
  tracing: TracingPaths;
  mcpRegistry: McpRegistryPaths;
  localModels: LocalModelsPaths;
}

export type ServiceName = keyof ServicePaths;

/** The service's name in URLs (`/api/v1/platform/<service>/…`) and in the generated file names. */
export const SERVICE_SLUGS: Readonly<Record<ServiceName, string>> = Object.freeze({
  gateway: 'gateway',
  auth: 'auth',
  registry: 'registry',
  master: 'master',
  mesh: 'mesh',
  workers: 'workers',
  workflowEngine: 'workflow-engine',
  tracing: 'tracing',
  mcpRegistry: 'mcp-registry',
  localModels: 'local-models',
});

export const SERVICE_NAMES = Object.keys(SERVICE_SLUGS) as ServiceName[];

/** The gateway's pass-through prefix: `${baseUrl}/api/v1/platform/<service>/<the service's own path>`. */
export const PLATFORM_PREFIX = '/api/v1/platform';

/**
 * Where a service's own paths start: the gateway at `baseUrl`, every other service behind the
 * gateway's pass-through, unless `direct` names its own URL.
 */
export function serviceBaseUrl(service: ServiceName, baseUrl: string, direct: Partial<Record<ServiceName, string>> = {}): string {
  const trimmed = (url: string) => url.replace(/\/+$/, '');
  if (direct[service]) return trimmed(direct[service]!);
  if (service === 'gateway') return trimmed(baseUrl);
  return `${trimmed(baseUrl)}${PLATFORM_PREFIX}/${SERVICE_SLUGS[service]}`;
}
