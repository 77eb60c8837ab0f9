import { fetchTransport, ServiceClient, UpstreamError, type TokenSource } from '@platform/clients';
// Types only: the library's runtime (undici 8) needs Node 22, so its REST calls go through the
// platform's ServiceClient (README, "Decisions").
import type { V1Deployment, V1Service } from '@kubernetes/client-node';
import { createHash } from 'node:crypto';

/** What a deployer needs to know about an agent. */
export interface DeployTarget {
  id: string;
  namespace: string;
  name: string;
  version: string;
  manifest: Record<string, unknown>;
  image?: string;
  port: number;
  replicas: number;
  endpoint?: string;
  env: Record<string, string>;
}

export interface Deployer {
  readonly kind: 'none' | 'kubernetes';
  /** Where the agent will answer once deployed (registered with the mesh before deploying). */
  endpointFor(target: DeployTarget): string | undefined;
  /** Creates or replaces the agent's workload; returns what it made. */
  apply(target: DeployTarget): Promise<Record<string, unknown>>;
  /** Removes the workload; removing what is not there succeeds. */
  remove(target: DeployTarget): Promise<void>;
}

/** The local default: the agent runs wherever its `endpoint` says; nothing is deployed. */
export class NoneDeployer implements Deployer {
  readonly kind = 'none' as const;
  endpointFor(target: DeployTarget): string | undefined {
    return target.endpoint;
  }
  async apply(target: DeployTarget): Promise<Record<string, unknown>> {
    return { deployer: 'none', endpoint: target.endpoint ?? null };
  }
  async remove(): Promise<void> {}
}

/** A DNS-1123 label of at most 63 characters, unique per agent namespace and name. */
export function workloadName(namespace: string, name: string): string {
  const full = `${namespace}-${name}`
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '');
  if (full.length <= 63) return full;
  const hash = createHash('sha256').update(full).digest('hex').slice(0, 8);
  return `${full.slice(0, 54).replace(/-+$/, '')}-${hash}`;
}

const labelValue = (value: string) =>
  value
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .slice(0, 63)
    .replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, '');

interface SecurityPosture {
  tier?: string;
  capabilities?: { required?: string[]; optional?: string[] };
  sandboxing?: {
    required?: boolean;
    type?: string;
    resource_limits?: { max_memory_mb?: number; max_cpu_cores?: number; max_execution_seconds?: number; max_disk_mb?: number };
  };
}

/** The Deployment and Service of an agent, from its manifest's runtime and security limits. */
export function kubernetesObjects(target: DeployTarget, namespace: string): { deployment: V1Deployment; service: V1Service } {
  const name = workloadName(target.namespace, target.name);
  const security = (target.manifest.security ?? {}) as SecurityPosture;
  const limits = security.sandboxing?.resource_limits ?? {};
  const capabilities = [...(security.capabilities?.required ?? []), ...(security.capabilities?.optional ?? [])];
  const resourceLimits: Record<string, string> = {};
  if (limits.max_memory_mb) resourceLimits.memory = `${limits.max_memory_mb}Mi`;
  if (limits.max_cpu_cores) resourceLimits.cpu = String(limits.max_cpu_cores);
  if (limits.max_disk_mb) resourceLimits['ephemeral-storage'] = `${limits.max_disk_mb}Mi`;
  const labels = {
    'app.kubernetes.io/name': name,
    'app.kubernetes.io/instance': name,
    'app.kubernetes.io/managed-by': 'agent-platform-gateway',
    'agent-platform/namespace': labelValue(target.namespace),
    'agent-platform/name': labelValue(target.name),
    'agent-platform/version': labelValue(target.version),
  };
  const selector = { 'app.kubernetes.io/instance': name };
  const env = {
    ...target.env,
    AGENT_ID: target.id,
    AGENT_NAMESPACE: target.namespace,
    AGENT_NAME: target.name,
    AGENT_VERSION: target.version,
    PORT: String(target.port),
    ...(limits.max_execution_seconds && { AGENT_MAX_EXECUTION_SECONDS: String(limits.max_execution_seconds) }),
  };
  const sandboxed = security.sandboxing?.required === true || ['tier_3_write_elevated', 'tier_4_system_admin'].includes(security.tier ?? '');
  const deployment: V1Deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name,
      namespace,
      labels,
      annotations: { 'agent-platform/agent-id': target.id, ...(security.tier && { 'agent-platform/tier': security.tier }) },
    },
    spec: {
      replicas: target.replicas,
      selector: { matchLabels: selector },
      template: {
        metadata: { labels },
        spec: {
          automountServiceAccountToken: false,
          ...(limits.max_execution_seconds && { terminationGracePeriodSeconds: Math.min(limits.max_execution_seconds, 3600) }),
          securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
          containers: [
            {
              name: 'agent',
              image: target.image,
              ports: [{ name: 'http', containerPort: target.port, protocol: 'TCP' }],
              env: Object.entries(env).map(([key, value]) => ({ name: key, value })),
              resources: Object.keys(resourceLimits).length > 0 ? { limits: resourceLimits, requests: resourceLimits } : undefined,
              securityContext: {
                allowPrivilegeEscalation: false,
                privileged: false,
                readOnlyRootFilesystem: sandboxed || !capabilities.includes('filesystem-write'),
                capabilities: { drop: ['ALL'] },
              },
            },
          ],
        },
      },
    },
  };
  const service: V1Service = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace, labels, annotations: { 'agent-platform/agent-id': target.id } },
    spec: { type: 'ClusterIP', selector, ports: [{ name: 'http', port: target.port, targetPort: 'http', protocol: 'TCP' }] },
  };
  return { deployment, service };
}

export interface KubernetesOptions {
  apiUrl: string;
  namespace: string;
  token?: TokenSource;
  timeoutMs?: number;
  defaultImage?: string;
}

/** Deploys agents as a Deployment plus a Service in one namespace, through the Kubernetes REST API. */
export class KubernetesDeployer implements Deployer {
  readonly kind = 'kubernetes' as const;
  private readonly http: ServiceClient;

  constructor(private readonly options: KubernetesOptions) {
    this.http = new ServiceClient({
      service: 'kubernetes',
      baseUrl: options.apiUrl,
      timeoutMs: options.timeoutMs ?? 10_000,
      token: options.token,
      transport: fetchTransport,
    });
  }

  endpointFor(target: DeployTarget): string {
    return `http://${workloadName(target.namespace, target.name)}.${this.options.namespace}.svc.cluster.local:${target.port}`;
  }

  async apply(target: DeployTarget): Promise<Record<string, unknown>> {
    const { deployment, service } = kubernetesObjects({ ...target, image: target.image ?? this.options.defaultImage }, this.options.namespace);
    const ns = encodeURIComponent(this.options.namespace);
    await this.upsert(`/apis/apps/v1/namespaces/${ns}/deployments`, deployment);
    await this.upsert(`/api/v1/namespaces/${ns}/services`, service);
    return {
      deployer: 'kubernetes',
      namespace: this.options.namespace,
      deployment: deployment.metadata!.name,
      service: service.metadata!.name,
      image: deployment.spec!.template.spec!.containers[0].image,
    };
  }

  async remove(target: DeployTarget): Promise<void> {
    const ns = encodeURIComponent(this.options.namespace);
    const name = workloadName(target.namespace, target.name);
    for (const path of [`/apis/apps/v1/namespaces/${ns}/deployments/${name}`, `/api/v1/namespaces/${ns}/services/${name}`]) {
      await this.http
        .request('DELETE', path, { idempotent: true, body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Foreground' } })
        .catch((error: unknown) => {
          if (!(error instanceof UpstreamError && error.upstreamStatus === 404)) throw error;
        });
    }
  }

  /** Creates the object; when it exists, replaces it (keeping its resourceVersion and, for a Service, its clusterIP). */
  private async upsert(collection: string, object: V1Deployment | V1Service): Promise<void> {
    try {
      await this.http.request('POST', collection, { body: object });
    } catch (error) {
      if (!(error instanceof UpstreamError && error.upstreamStatus === 409)) throw error;
      const path = `${collection}/${object.metadata!.name}`;
      const current = (await this.http.request('GET', path)) as {
        metadata?: { resourceVersion?: string };
        spec?: { clusterIP?: string; clusterIPs?: string[] };
      };
      const replacement = structuredClone(object) as V1Service;
      replacement.metadata!.resourceVersion = current.metadata?.resourceVersion;
      if (object.kind === 'Service' && replacement.spec)
        Object.assign(replacement.spec, { clusterIP: current.spec?.clusterIP, clusterIPs: current.spec?.clusterIPs });
      await this.http.request('PUT', path, { body: replacement, idempotent: true });
    }
  }
}
