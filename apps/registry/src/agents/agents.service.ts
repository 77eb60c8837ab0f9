import type { registry } from '@platform/contracts';
import { badRequest, conflict, notFound } from '@platform/http';
import semver from 'semver';
import type { Db } from '../database';
import { assertOwner, type Caller } from '../access';
import type { AcceptedManifest } from '../manifests/manifest-upload';
import { queryAgents } from '../search/agent-query';
import { inTransaction, lockAgent, refreshAgent, type Tx } from './agent-state';
import { AGENT_COLUMNS, fromRow, type AgentRow } from './agent-rows';
import type { AgentWithOwner } from './agent-view';

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
    assertOwner(who, await this.namespaceOwner(namespace, who.sub), namespace);

    return inTransaction(this.db, async (tx) => {
      let [agent] = await tx.$queryRaw<Array<{ id: string; deletedAt: Date | null }>>`
        SELECT "id", "deletedAt" FROM "registry"."Agent" WHERE "namespace" = ${namespace} AND "name" = ${name} FOR UPDATE`;
      let created = false;
      if (target && (!agent || agent.deletedAt)) throw notFound(`Agent ${namespace}/${name} not found; publish its first version with POST /agents`);
      if (!agent) {
        agent = { ...(await tx.agent.create({ data: { namespace, name, createdBy: who.sub, keywords: [], declaredCompliance: [] }, select: { id: true } })), deletedAt: null };
        await lockAgent(tx, agent.id);
        created = true;
      }
      if (agent.deletedAt) await tx.$executeRaw`UPDATE "registry"."Agent" SET "deletedAt" = NULL WHERE "id" = ${agent.id}::uuid`;
      await this.assertNewVersion(tx, agent.id, `${namespace}/${name}`, manifest.version);
      const [version] = await tx.$queryRaw<Array<{ id: string }>>`
        INSERT INTO "registry"."AgentVersion" ("id", "agentId", "version", "prerelease", "manifestBytes", "format", "digest", "convertedBytes",
          "convertedDigest", "document", "schemaVersion", "warnings", "publishedBy")
        VALUES (gen_random_uuid(), ${agent.id}::uuid, ${manifest.version}, ${semver.prerelease(manifest.version) !== null}, ${manifest.bytes},
          ${manifest.format}, ${manifest.digest}, ${manifest.convertedBytes}, ${manifest.convertedDigest}, ${JSON.stringify(manifest.document)}::jsonb,
          ${manifest.schemaVersion}, ${JSON.stringify(manifest.warnings)}::jsonb, ${who.sub})
        RETURNING "id"`;
      await refreshAgent(tx, agent.id);
      return { agent: await this.byId(tx, agent.id), versionId: version.id, created };
    });
  }

  /**
   * The owner of a namespace; a namespace that does not exist yet is created for `claimant`
   * (INSERT ... ON CONFLICT DO NOTHING: racing first publishers agree on one owner).
   */
  private async namespaceOwner(namespace: string, claimant: string): Promise<string> {
    const select = () => this.db.$queryRaw<Array<{ ownerSub: string }>>`SELECT "ownerSub" FROM "registry"."Namespace" WHERE "name" = ${namespace}`;
    let [row] = await select();
    if (!row) {
      await this.db.$executeRaw`INSERT INTO "registry"."Namespace" ("name", "ownerSub") VALUES (${namespace}, ${claimant}) ON CONFLICT ("name") DO NOTHING`;
      [row] = await select();
    }
    return row.ownerSub;
  }

  private async byId(tx: Tx, id: string): Promise<AgentWithOwner> {
    const [row] = await tx.$queryRaw<AgentRow[]>`
      SELECT ${AGENT_COLUMNS} FROM "registry"."Agent" a JOIN "registry"."Namespace" n ON n."name" = a."namespace" WHERE a."id" = ${id}::uuid`;
    return fromRow(row);
  }

  /** Version numbers are never reused: equal precedence (build metadata ignored) counts, unpublished ones too. */
  private async assertNewVersion(tx: Tx, agentId: string, agent: string, version: string): Promise<void> {
    const existing = await tx.$queryRaw<Array<{ version: string; unpublishedAt: Date | null }>>`
      SELECT "version", "unpublishedAt" FROM "registry"."AgentVersion" WHERE "agentId" = ${agentId}::uuid`;
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
      return this.byId(tx, agent.id);
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
