import { RegistryClient, UpstreamError, type TokenSource } from '@platform/clients';
import type { registry } from '@platform/contracts';
import { bearerOf, probe, upstream } from './upstream';

/** What the master needs of the registry, which owns certification (one engine on the platform). */
export interface RegistryApi {
  /** Whether this version of the agent is published. */
  hasVersion(authorization: string | undefined, namespace: string, name: string, version: string): Promise<boolean>;
  /** Publishes the manifest (creating the agent when new); an existing version is left as is. */
  publish(authorization: string | undefined, manifest: object): Promise<void>;
  requestCertification(authorization: string | undefined, namespace: string, name: string, version: string): Promise<registry.Certification>;
  /** A certification of this agent by id, or undefined when the registry has none. */
  findCertification(authorization: string | undefined, namespace: string, name: string, id: string): Promise<registry.Certification | undefined>;
  ready(): Promise<boolean>;
}

/** The registry over `@platform/clients`, forwarding the caller's token (or the service's own). */
export class HttpRegistryApi implements RegistryApi {
  private readonly client: RegistryClient;

  constructor(private readonly options: { url: string; timeoutMs: number; token?: TokenSource }) {
    this.client = new RegistryClient({ baseUrl: options.url, timeoutMs: options.timeoutMs, token: options.token });
  }

  async hasVersion(authorization: string | undefined, namespace: string, name: string, version: string): Promise<boolean> {
    return upstream(async () => (await this.client.version(namespace, name, version, { bearer: bearerOf(authorization) })) !== undefined);
  }

  publish(authorization: string | undefined, manifest: object): Promise<void> {
    return upstream(async () => {
      try {
        await this.client.publish(manifest, { bearer: bearerOf(authorization) });
      } catch (error) {
        // The version exists already (published before, perhaps by another master): nothing to do.
        if (!(error instanceof UpstreamError && error.upstreamStatus === 409)) throw error;
      }
    });
  }

  requestCertification(authorization: string | undefined, namespace: string, name: string, version: string) {
    return upstream(() => this.client.requestCertification(namespace, name, { version }, { bearer: bearerOf(authorization) }));
  }

  findCertification(authorization: string | undefined, namespace: string, name: string, id: string) {
    return upstream(() => this.client.certification(namespace, name, id, { bearer: bearerOf(authorization) }));
  }

  ready(): Promise<boolean> {
    return probe(`${this.options.url.replace(/\/$/, '')}/health/ready`, this.options.timeoutMs);
  }
}
