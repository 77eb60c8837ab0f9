import type { registry } from '@platform/contracts';
import { badRequest, notFound } from '@platform/http';
import type { Caller } from '../access';
import type { AgentsService, AgentWithOwner } from '../agents/agents.service';
import { acceptManifest, type RawManifest } from '../manifest-upload';
import type { StoredManifest, VersionsRepository } from './versions.repository';
import { versionBody } from './versions.view';

export interface PublishTarget {
  namespace: string;
  name: string;
}

/** Versions of an agent: publishing, list in semantic-version order, `latest`, one version, unpublish. */
export class VersionsService {
  constructor(
    private readonly versions: VersionsRepository,
    private readonly agents: AgentsService,
    private readonly options: { requireVerifiedManifests: boolean } = { requireVerifiedManifests: false },
  ) {}

  /**
   * Publishes a manifest as a new version. Through `POST /agents` (no target) the agent is
   * created on first publish (and a deleted one comes back); through
   * `POST /agents/{ns}/{name}/versions` it must exist. The caller must own the namespace, or
   * becomes its owner when it is new. A version that exists or ever existed is a 409. The
   * manifest is validated first (400, 413, 415; see acceptManifest).
   */
  async publish(who: Caller, raw: RawManifest, target?: PublishTarget, team?: string): Promise<registry.PublishResult> {
    const manifest = acceptManifest(raw, { requireVerified: this.options.requireVerifiedManifests });
    const namespace = target?.namespace ?? manifest.namespace;
    if (!namespace) {
      throw badRequest('The manifest has no metadata.namespace: set it, or publish through /agents/{namespace}/{name}/versions', {
        issues: [{ path: '$.metadata.namespace', message: 'a namespace is required to publish', code: 'registry.metadata.namespace.required' }],
      });
    }
    if (target && manifest.namespace !== undefined && manifest.namespace !== target.namespace) {
      throw badRequest(`metadata.namespace is ${manifest.namespace} but the path names ${target.namespace}`, {
        issues: [{ path: '$.metadata.namespace', message: `must be ${target.namespace} (or absent)`, code: 'registry.metadata.namespace.mismatch' }],
      });
    }
    if (target && manifest.name !== target.name) {
      throw badRequest(`metadata.name is ${manifest.name} but the path names ${target.name}`, {
        issues: [{ path: '$.metadata.name', message: `must be ${target.name}`, code: 'registry.metadata.name.mismatch' }],
      });
    }
    // A new version of an existing agent needs the right to change it: 404 names the agent, as a missing one does.
    if (target) await this.agents.writable(who, target.namespace, target.name);
    else await this.agents.claimNamespace(who, namespace, team);
    const published = await this.versions.publish(namespace, manifest.name, who.sub, manifest, target !== undefined);
    const row = await this.versions.row(published.versionId);
    return { agent: this.agents.body(published.agent), version: versionBody(published.agent, row, null), created: published.created };
  }

  async list(namespace: string, name: string, query: registry.VersionListQuery): Promise<registry.VersionPage> {
    const agent = await this.agents.get(namespace, name);
    const rows = await this.versions.list(agent.id, query);
    if (query.order === 'asc') rows.reverse();
    const page = rows.slice(query.offset, query.offset + query.limit);
    const [sizes, certifications] = await Promise.all([this.versions.sizes(page.map((row) => row.id)), this.versions.certificationStatus(agent.id)]);
    return {
      items: page.map((row) => versionBody(agent, { ...row, size: sizes.get(row.id) ?? 0 }, certifications.get(row.version) ?? null)),
      total: rows.length,
      limit: query.limit,
      offset: query.offset,
      latest: agent.latestVersion,
    };
  }

  /** Resolves `latest` to the highest published non-prerelease; 404 when nothing matches or it was unpublished. */
  async resolve(namespace: string, name: string, version: string): Promise<{ agent: AgentWithOwner; version: string }> {
    const agent = await this.agents.get(namespace, name);
    if (version !== 'latest') return { agent, version };
    if (!agent.latestVersion) throw notFound(`Agent ${namespace}/${name} has no published release (pre-releases are never latest)`);
    return { agent, version: agent.latestVersion };
  }

  async get(namespace: string, name: string, requested: string): Promise<{ agent: AgentWithOwner; body: registry.VersionDetail }> {
    const { agent, version } = await this.resolve(namespace, name, requested);
    const row = await this.versions.findWithDocument(agent.id, version);
    if (!row || row.unpublishedAt) throw notFound(`Version ${version} of ${namespace}/${name} not found`, row ? { unpublished: true } : undefined);
    const [sizes, certifications] = await Promise.all([this.versions.sizes([row.id]), this.versions.certificationStatus(agent.id)]);
    const { document, ...metadata } = row;
    return {
      agent,
      body: {
        ...versionBody(agent, { ...metadata, size: sizes.get(row.id) ?? 0 }, certifications.get(version) ?? null),
        manifest: document as Record<string, unknown>,
      },
    };
  }

  /**
   * The stored bytes of both representations of a published version: one query on the hot path;
   * the detailed lookups only explain a miss.
   */
  async manifest(namespace: string, name: string, requested: string): Promise<StoredManifest> {
    const hit = await this.versions.manifest(namespace, name, requested);
    if (hit) return hit;
    const { agent, version } = await this.resolve(namespace, name, requested);
    const row = await this.versions.findState(agent.id, version);
    throw notFound(`Version ${version} of ${namespace}/${name} not found`, row ? { unpublished: true } : undefined);
  }

  /** Unpublishes a version: it disappears from reads, its number stays taken (tombstone). */
  async unpublish(who: Caller, namespace: string, name: string, version: string): Promise<void> {
    if (version === 'latest') throw badRequest('Unpublish names an exact version, not latest');
    const agent = await this.agents.writable(who, namespace, name);
    await this.versions.unpublish(agent.id, version, who.sub, `${namespace}/${name}`);
  }
}
