import type { registry } from '@platform/contracts';
import { callService, passOn } from './upstream';

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

const SEGMENT = encodeURIComponent;

export class HttpRegistryApi implements RegistryApi {
  constructor(private readonly options: { url: string; timeoutMs: number }) {}

  private api(path: string): string {
    return `${this.options.url.replace(/\/$/, '')}/api/v1${path}`;
  }

  async hasVersion(authorization: string | undefined, namespace: string, name: string, version: string): Promise<boolean> {
    const answer = await callService('registry', this.api(`/agents/${SEGMENT(namespace)}/${SEGMENT(name)}/versions/${SEGMENT(version)}`), {
      authorization,
      timeoutMs: this.options.timeoutMs,
    });
    if (answer.status === 200) return true;
    if (answer.status === 404) return false;
    throw passOn('registry', answer);
  }

  async publish(authorization: string | undefined, manifest: object): Promise<void> {
    const answer = await callService('registry', this.api('/agents'), { method: 'POST', authorization, body: manifest, timeoutMs: this.options.timeoutMs });
    if (answer.status === 201 || answer.status === 409) return;
    throw passOn('registry', answer);
  }

  async requestCertification(authorization: string | undefined, namespace: string, name: string, version: string): Promise<registry.Certification> {
    const answer = await callService('registry', this.api(`/certifications/${SEGMENT(namespace)}/${SEGMENT(name)}/request`), {
      method: 'POST',
      authorization,
      body: { version },
      timeoutMs: this.options.timeoutMs,
    });
    if (answer.status === 201) return answer.body as registry.Certification;
    throw passOn('registry', answer);
  }

  async findCertification(authorization: string | undefined, namespace: string, name: string, id: string): Promise<registry.Certification | undefined> {
    // The registry lists certifications newest first per agent; ours was requested through it.
    for (let offset = 0; offset < 5000; offset += 500) {
      const query = new URLSearchParams({ namespace, name, limit: '500', offset: String(offset) });
      const answer = await callService('registry', this.api(`/certifications?${query}`), { authorization, timeoutMs: this.options.timeoutMs });
      if (answer.status !== 200) throw passOn('registry', answer);
      const page = answer.body as { items: registry.Certification[]; total: number };
      const found = page.items.find((certification) => certification.id === id);
      if (found || offset + page.items.length >= page.total) return found;
    }
    return undefined;
  }

  async ready(): Promise<boolean> {
    return probe(`${this.options.url.replace(/\/$/, '')}/health/ready`, this.options.timeoutMs);
  }
}

export async function probe(url: string, timeoutMs: number): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(Math.min(timeoutMs, 2000)) });
    await response.arrayBuffer();
    return response.ok;
  } catch {
    return false;
  }
}
