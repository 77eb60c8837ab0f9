import type { registry } from '@platform/contracts';
import { badRequest, conflict, notFound } from '@platform/service-kit';
import semver from 'semver';
import type { Db } from '../database';
import { assertOwner, type Caller } from '../access';
import type { AcceptedManifest } from '../manifests/manifest-upload';
import { queryAgents } from '../search/agent-query';
import { inTransaction, lockAgent, refreshAgent, type Tx } from './agent-state';
import { AGENT_COLUMNS, fromRow, type AgentRow } from './agent-rows';
import type { AgentWithOwner } from './agent-view';

const withOwner = { ns: { select: { ownerSub: true } } } as const;

export interface PublishTarget {
  namespace: string;
  name: string;
}

export interface Published {
  agent: AgentWithOwner;
  versionId: string;
  created: boolean;
}

/** Agents: publishing, reading, agent-level metadata, deletion. */
export class AgentsService {
  constructor(private readonly db: Db) {}

  /** A live (not deleted) agent with its owner, or 404. */
  async get(namespace: string, name: string): Promise<AgentWithOwner> {
    const [row] = await this.db.$queryRaw<AgentRow[]>`
      SELECT ${AGENT_COLUMNS} FROM "registry"."Agent" a JOIN "registry"."Namespace" n ON n."name" = a."namespace"
      WHERE a."namespace" = ${namespace} AND a."name" = ${name} AND a."deletedAt" IS NULL`;
    if (!row) throw notFound(`Agent ${namespace}/${name} not found`);
    return fromRow(row);
  }

  list(query: registry.AgentListQuery) {
    const { limit, offset, ...filters } = query;
    return queryAgents(this.db, { ...filters, limit, offset });
  }

  /**
   * Publishes a manifest as a new version. Through `POST /agents` (no target) the agent is
   * created on first publish (and a deleted one comes back); through
   * `POST /agents/{ns}/{name}/versions` it must exist. The caller must own the namespace, or
   * becomes its owner when it is new. A version that exists or ever existed is a 409.
   */
  async publish(who: Caller, manifest: AcceptedManifest, target?: PublishTarget): Promise<Published> {
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
    const name = manifest.name;
    // The first publisher into a namespace owns it (ON CONFLICT DO NOTHING: racing first publishers agree on one owner).
    await this.db.namespace.createMany({ data: [{ name: namespace, ownerSub: who.sub }], skipDuplicates: true });
    const owner = await this.db.namespace.findUniqueOrThrow({ where: { name: namespace } });
    assertOwner(who, owner.ownerSub, namespace);

    return inTransaction(this.db, async (tx) => {
      let agent = await tx.agent.findUnique({ where: { namespace_name: { namespace, name } } });
      let created = false;
      if (target && (!agent || agent.deletedAt)) throw notFound(`Agent ${namespace}/${name} not found; publish its first version with POST /agents`);
      if (!agent) {
        agent = await tx.agent.create({ data: { namespace, name, createdBy: who.sub } });
        created = true;
      }
      await lockAgent(tx, agent.id);
      if (agent.deletedAt) await tx.agent.update({ where: { id: agent.id }, data: { deletedAt: null } });
      await this.assertNewVersion(tx, agent.id, `${namespace}/${name}`, manifest.version);
      const version = await tx.agentVersion.create({
        data: {
          agentId: agent.id,
          version: manifest.version,
          prerelease: semver.prerelease(manifest.version) !== null,
          manifestBytes: new Uint8Array(manifest.bytes),
          format: manifest.format,
          digest: manifest.digest,
          convertedBytes: new Uint8Array(manifest.convertedBytes),
          convertedDigest: manifest.convertedDigest,
          document: manifest.document as object,
          schemaVersion: manifest.schemaVersion,
          warnings: manifest.warnings,
          publishedBy: who.sub,
        },
      });
      await refreshAgent(tx, agent.id);
      return { agent: await tx.agent.findUniqueOrThrow({ where: { id: agent.id }, include: withOwner }), versionId: version.id, created };
    });
  }

  /** Version numbers are never reused: equal precedence (build metadata ignored) counts, unpublished ones too. */
  private async assertNewVersion(tx: Tx, agentId: string, agent: string, version: string): Promise<void> {
    const existing = await tx.agentVersion.findMany({ where: { agentId }, select: { version: true, unpublishedAt: true } });
    const clash = existing.find((other) => semver.eq(other.version, version));
    if (clash) {
      throw conflict(
        clash.unpublishedAt
          ? `Version ${clash.version} of ${agent} was published and unpublished; a version number is never reused`
          : `Version ${clash.version} of ${agent} is already published; published manifests are immutable`,
        { version: clash.version, unpublished: clash.unpublishedAt !== null },
      );
    }
  }

  async update(who: Caller, namespace: string, name: string, changes: registry.AgentUpdateBody): Promise<AgentWithOwner> {
    const agent = await this.get(namespace, name);
    assertOwner(who, agent.ns.ownerSub, namespace);
    return this.db.$transaction(async (tx) => {
      await lockAgent(tx, agent.id);
      const { compliance, ...rest } = changes;
      await tx.agent.update({
        where: { id: agent.id },
        data: { ...rest, ...(compliance !== undefined && { declaredCompliance: [...new Set(compliance)] }) },
      });
      await refreshAgent(tx, agent.id);
      return tx.agent.findUniqueOrThrow({ where: { id: agent.id }, include: withOwner });
    });
  }

  /** Unpublishes every version and hides the agent; the rows stay as tombstones. */
  async remove(who: Caller, namespace: string, name: string): Promise<void> {
    const agent = await this.get(namespace, name);
    assertOwner(who, agent.ns.ownerSub, namespace);
    await this.db.$transaction(async (tx) => {
      await lockAgent(tx, agent.id);
      await tx.agentVersion.updateMany({ where: { agentId: agent.id, unpublishedAt: null }, data: { unpublishedAt: new Date(), unpublishedBy: who.sub } });
      await tx.agent.update({ where: { id: agent.id }, data: { deletedAt: new Date() } });
      await refreshAgent(tx, agent.id);
    });
  }
}
