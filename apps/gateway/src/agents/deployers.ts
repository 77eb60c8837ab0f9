// Loaded when the Kubernetes deployer is chosen: the client is large and the local default never needs it.
import type * as k8s from '@kubernetes/client-node';
import type { KubeConfig, V1Deployment, V1Service } from '@kubernetes/client-node';
import { UpstreamError } from '@platform/clients';
import { existsSync } from 'node:fs';
import { delimiter } from 'node:path';
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

const SERVICE_ACCOUNT = '/var/run/secrets/kubernetes.io/serviceaccount';

/** `@kubernetes/client-node`, loaded on first use. */
export const kubernetesClient = (): Promise<typeof k8s> => import('@kubernetes/client-node');

export interface KubeConfigSource {
  /** A configured API server (`GATEWAY_K8S_API_URL`); wins over everything else. */
  apiUrl?: string;
  /** Bearer token for `apiUrl`; without it, the pod's service account token file (re-read as it rotates). */
  token?: string;
  /** CA bundle for `apiUrl`; without it, the pod's service account CA when present. */
  caFile?: string;
  /** `KUBECONFIG`: the current context of that file (or `:`-separated files). */
  kubeconfig?: string;
  /** Running in a pod (`KUBERNETES_SERVICE_HOST` set): the in-cluster service account. */
  inCluster?: boolean;
  /** Where the service account files are (tests point it elsewhere). */
  serviceAccountDir?: string;
}

/**
 * The KubeConfig of the Kubernetes deployer: a configured server, else `KUBECONFIG`, else the
 * in-cluster service account. Anything else is a start-up error naming the variables.
 */
export async function loadKubeConfig(source: KubeConfigSource): Promise<KubeConfig> {
  const kc = new (await kubernetesClient()).KubeConfig();
  const accountDir = source.serviceAccountDir ?? SERVICE_ACCOUNT;
  if (source.apiUrl) {
    const caFile = source.caFile ?? (existsSync(`${accountDir}/ca.crt`) ? `${accountDir}/ca.crt` : undefined);
    kc.loadFromClusterAndUser(
      // The client only speaks plain HTTP (a `kubectl proxy`, a test server) with TLS checks declared off.
      { name: 'gateway', server: source.apiUrl, caFile, skipTLSVerify: source.apiUrl.startsWith('http:') },
      source.token
        ? { name: 'gateway', token: source.token }
        : { name: 'gateway', authProvider: { name: 'tokenFile', config: { tokenFile: `${accountDir}/token` } } },
    );
  } else if (source.kubeconfig) {
    // Several files (`a:b`) are merged the way kubectl does, which the client does from the environment.
    if (source.kubeconfig.includes(delimiter)) kc.loadFromDefault();
    else kc.loadFromFile(source.kubeconfig);
  } else if (source.inCluster) {
    kc.loadFromCluster();
  } else {
    throw new Error('GATEWAY_DEPLOYER=kubernetes needs GATEWAY_K8S_API_URL, KUBECONFIG or a pod service account (KUBERNETES_SERVICE_HOST)');
  }
  if (!kc.getCurrentCluster()) throw new Error(`KUBECONFIG (${source.kubeconfig}) has no current context with a cluster`);
  return kc;
}

export interface KubernetesOptions {
  kubeConfig: KubeConfig;
  namespace: string;
  timeoutMs?: number;
  defaultImage?: string;
}

/** A Kubernetes API failure as the platform's upstream error, naming `kubernetes`. */
function upstream(client: typeof k8s, error: unknown, doing: string): UpstreamError {
  if (error instanceof UpstreamError) return error;
  if (error instanceof client.ApiException) {
    const body = error.body as { message?: string; reason?: string } | string | undefined;
    const message = typeof body === 'object' && body?.message ? body.message : `HTTP ${error.code}`;
    return new UpstreamError('kubernetes', `kubernetes refused to ${doing}: ${message}`, 'status', error.code, body);
  }
  const cause = error as { name?: string; message?: string; code?: string };
  if (cause?.name === 'AbortError' || cause?.name === 'TimeoutError')
    return new UpstreamError('kubernetes', `kubernetes did not answer in time to ${doing}`, 'timeout');
  return new UpstreamError('kubernetes', `kubernetes is unreachable to ${doing}: ${cause?.message ?? String(error)}`, 'network');
}

/**
 * Deploys agents as a Deployment plus a Service in one namespace, through `@kubernetes/client-node`
 * (AppsV1Api and CoreV1Api): create, replace on 409, delete with 404 taken as done.
 */
export class KubernetesDeployer implements Deployer {
  readonly kind = 'kubernetes' as const;

  private constructor(
    private readonly options: KubernetesOptions,
    private readonly client: typeof k8s,
    private readonly apps: k8s.AppsV1Api,
    private readonly core: k8s.CoreV1Api,
  ) {}

  static async create(options: KubernetesOptions): Promise<KubernetesDeployer> {
    const client = await kubernetesClient();
    const cluster = options.kubeConfig.getCurrentCluster()!;
    const timeoutMs = options.timeoutMs ?? 10_000;
    // makeApiClient's configuration plus a timeout on every call.
    const configuration = client.createConfiguration({
      baseServer: new client.ServerConfiguration(cluster.server, {}),
      authMethods: { default: options.kubeConfig },
      promiseMiddleware: [
        {
          pre: async (context) => (context.setSignal(AbortSignal.timeout(timeoutMs)), context),
          post: async (response) => response,
        },
      ],
    });
    return new KubernetesDeployer(options, client, new client.AppsV1Api(configuration), new client.CoreV1Api(configuration));
  }

  private isStatus(error: unknown, code: number): boolean {
    return error instanceof this.client.ApiException && error.code === code;
  }

  endpointFor(target: DeployTarget): string {
    return `http://${workloadName(target.namespace, target.name)}.${this.options.namespace}.svc.cluster.local:${target.port}`;
  }

  async apply(target: DeployTarget): Promise<Record<string, unknown>> {
    const { deployment, service } = kubernetesObjects({ ...target, image: target.image ?? this.options.defaultImage }, this.options.namespace);
    const namespace = this.options.namespace;
    const name = deployment.metadata!.name!;
    await this.upsert(`create Deployment ${namespace}/${name}`, {
      create: () => this.apps.createNamespacedDeployment({ namespace, body: deployment }),
      read: () => this.apps.readNamespacedDeployment({ name, namespace }),
      replace: (current) => {
        const body = structuredClone(deployment);
        body.metadata!.resourceVersion = current.metadata?.resourceVersion;
        return this.apps.replaceNamespacedDeployment({ name, namespace, body });
      },
    });
    await this.upsert(`create Service ${namespace}/${name}`, {
      create: () => this.core.createNamespacedService({ namespace, body: service }),
      read: () => this.core.readNamespacedService({ name, namespace }),
      replace: (current) => {
        // A Service keeps its cluster IP: the replacement carries the one the cluster gave it.
        const body = structuredClone(service);
        body.metadata!.resourceVersion = current.metadata?.resourceVersion;
        Object.assign(body.spec!, { clusterIP: current.spec?.clusterIP, clusterIPs: current.spec?.clusterIPs });
        return this.core.replaceNamespacedService({ name, namespace, body });
      },
    });
    return {
      deployer: 'kubernetes',
      namespace,
      deployment: name,
      service: service.metadata!.name,
      image: deployment.spec!.template.spec!.containers[0].image,
    };
  }

  async remove(target: DeployTarget): Promise<void> {
    const namespace = this.options.namespace;
    const name = workloadName(target.namespace, target.name);
    const gone = (doing: string) => (error: unknown) => {
      if (!this.isStatus(error, 404)) throw upstream(this.client, error, doing);
    };
    await this.apps
      .deleteNamespacedDeployment({ name, namespace, propagationPolicy: 'Foreground' })
      .then(() => undefined, gone(`delete Deployment ${namespace}/${name}`));
    await this.core.deleteNamespacedService({ name, namespace }).then(() => undefined, gone(`delete Service ${namespace}/${name}`));
  }

  /** Creates the object; when it exists (409), replaces it keeping its resourceVersion. */
  private async upsert<T extends V1Deployment | V1Service>(
    doing: string,
    calls: { create: () => Promise<T>; read: () => Promise<T>; replace: (current: T) => Promise<T> },
  ): Promise<void> {
    try {
      await calls.create();
    } catch (error) {
      if (!this.isStatus(error, 409)) throw upstream(this.client, error, doing);
      try {
        await calls.replace(await calls.read());
      } catch (replaceError) {
        throw upstream(this.client, replaceError, doing.replace('create', 'replace'));
      }
    }
  }
}
