import { registry } from '@platform/contracts';
import { ServiceClient, UpstreamError, type ClientOptions } from './service-client';

type Call = { bearer?: string; timeoutMs?: number; signal?: AbortSignal };
const segment = encodeURIComponent;

/** The registry (`REGISTRY_URL`, default port 3004): agents by namespace and name, versions and certification. */
export class RegistryClient {
  readonly http: ServiceClient;

  constructor(options: Omit<ClientOptions, 'service'>) {
    this.http = new ServiceClient({ service: 'registry', ...options });
  }

  /** `GET /agents/{ns}/{name}/versions/{version}`; undefined when the registry has no such version. */
  async version(namespace: string, name: string, version: string, call: Call = {}): Promise<registry.VersionDetail | undefined> {
    try {
      return await this.http.request('GET', `/api/v1/agents/${segment(namespace)}/${segment(name)}/versions/${segment(version)}`, {
        ...call,
        schema: registry.VersionDetail,
      });
    } catch (error) {
      if (error instanceof UpstreamError && error.upstreamStatus === 404) return undefined;
      throw error;
    }
  }

  /** `POST /agents`: publishes a manifest (the agent is created on its first version). Not retried. */
  publish(manifest: object, call: Call = {}): Promise<registry.PublishResult> {
    return this.http.request('POST', '/api/v1/agents', { ...call, body: manifest, schema: registry.PublishResult });
  }

  /** `POST /agents/{ns}/{name}/versions`: a new version of an existing agent. Not retried. */
  publishVersion(namespace: string, name: string, manifest: object, call: Call = {}): Promise<registry.PublishResult> {
    return this.http.request('POST', `/api/v1/agents/${segment(namespace)}/${segment(name)}/versions`, {
      ...call,
      body: manifest,
      schema: registry.PublishResult,
    });
  }

  /** `DELETE /agents/{ns}/{name}/versions/{version}`: unpublishes one version. */
  unpublishVersion(namespace: string, name: string, version: string, call: Call = {}): Promise<unknown> {
    return this.http.request('DELETE', `/api/v1/agents/${segment(namespace)}/${segment(name)}/versions/${segment(version)}`, { ...call, idempotent: true });
  }

  /** `DELETE /agents/{ns}/{name}`: unpublishes every version and hides the agent. */
  deleteAgent(namespace: string, name: string, call: Call = {}): Promise<unknown> {
    return this.http.request('DELETE', `/api/v1/agents/${segment(namespace)}/${segment(name)}`, { ...call, idempotent: true });
  }

  /** `GET /agents` with the registry's filters. */
  list(query: Partial<Record<keyof registry.AgentListQuery, string | number | boolean>>, call: Call = {}): Promise<registry.AgentPage> {
    return this.http.request('GET', '/api/v1/agents', { ...call, query, schema: registry.AgentPage });
  }

  /** `POST /certifications/{ns}/{name}/request`: queues a certification. Not retried (each call queues one). */
  requestCertification(namespace: string, name: string, body: registry.CertificationRequestBody, call: Call = {}): Promise<registry.Certification> {
    return this.http.request('POST', `/api/v1/certifications/${segment(namespace)}/${segment(name)}/request`, {
      ...call,
      body,
      schema: registry.Certification,
    });
  }

  /** `GET /certifications`, newest first. */
  certifications(
    query: Partial<registry.CertificationListQuery>,
    call: Call = {},
  ): Promise<{ items: registry.Certification[]; total: number; limit: number; offset: number }> {
    return this.http.request('GET', '/api/v1/certifications', { ...call, query, schema: registry.CertificationPage });
  }

  /** One certification of an agent by id (the registry lists them per agent; it has no by-id read). */
  async certification(namespace: string, name: string, id: string, call: Call = {}): Promise<registry.Certification | undefined> {
    for (let offset = 0; ; offset += 500) {
      const page = await this.certifications({ namespace, name, limit: 500, offset }, call);
      const found = page.items.find((certification) => certification.id === id);
      if (found || page.items.length === 0 || offset + page.items.length >= page.total) return found;
    }
  }
}
