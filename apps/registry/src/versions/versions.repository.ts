import semver from 'semver';
import { conflict, notFound } from '@platform/http';
import type { Db } from '../database';
import type { AgentVersion } from '../generated/prisma/client';
import { agentById, bySemverDesc, inTransaction, lockAgent, refreshAgent, type AgentWithOwner, type Tx } from '../agent-state.repository';
import type { AcceptedManifest } from '../manifest-upload';

/** A version row without its manifest bytes. */
export type VersionRow = Omit<AgentVersion, 'manifestBytes' | 'convertedBytes' | 'document'> & { size: number };

export interface StoredManifest {
  agentId: string;
  version: string;
  manifestBytes: Uint8Array;
  format: 'json' | 'yaml';
  digest: string;
  convertedBytes: Uint8Array;
  convertedDigest: string;
}

const METADATA = {
  id: true,
  agentId: true,
  version: true,
  prerelease: true,
  format: true,
  digest: true,
  convertedDigest: true,
  schemaVersion: true,
  warnings: true,
  publishedBy: true,
  publishedAt: true,
  unpublishedAt: true,
  unpublishedBy: true,
} as const;

/** Version numbers are never reused: equal precedence (build metadata ignored) counts, unpublished ones too. */
async function assertNewVersion(tx: Tx, agentId: string, agent: string, version: string): Promise<void> {
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

/** Agent versions: their manifests (bytes as published and converted), tombstones. */
export class VersionsRepository {
  constructor(private readonly db: Db) {}

  /**
   * Stores a manifest as a new version in one transaction. With `mustExist` the agent must be
   * live (404 otherwise); without, it is created on first publish and a deleted one comes back.
   */
  publish(
    namespace: string,
    name: string,
    by: string,
    manifest: AcceptedManifest,
    mustExist: boolean,
  ): Promise<{ agent: AgentWithOwner; versionId: string; created: boolean }> {
    return inTransaction(this.db, async (tx) => {
      let [agent] = await tx.$queryRaw<Array<{ id: string; deletedAt: Date | null }>>`
        SELECT "id", "deletedAt" FROM "registry"."Agent" WHERE "namespace" = ${namespace} AND "name" = ${name} FOR UPDATE`;
      let created = false;
      if (mustExist && (!agent || agent.deletedAt)) throw notFound(`Agent ${namespace}/${name} not found; publish its first version with POST /agents`);
      if (!agent) {
        agent = {
          ...(await tx.agent.create({ data: { namespace, name, createdBy: by, keywords: [], declaredCompliance: [] }, select: { id: true } })),
          deletedAt: null,
        };
        await lockAgent(tx, agent.id);
        created = true;
      }
      if (agent.deletedAt) await tx.$executeRaw`UPDATE "registry"."Agent" SET "deletedAt" = NULL WHERE "id" = ${agent.id}::uuid`;
      await assertNewVersion(tx, agent.id, `${namespace}/${name}`, manifest.version);
      const [version] = await tx.$queryRaw<Array<{ id: string }>>`
        INSERT INTO "registry"."AgentVersion" ("id", "agentId", "version", "prerelease", "manifestBytes", "format", "digest", "convertedBytes",
          "convertedDigest", "document", "schemaVersion", "warnings", "publishedBy")
        VALUES (gen_random_uuid(), ${agent.id}::uuid, ${manifest.version}, ${semver.prerelease(manifest.version) !== null}, ${manifest.bytes},
          ${manifest.format}, ${manifest.digest}, ${manifest.convertedBytes}, ${manifest.convertedDigest}, ${JSON.stringify(manifest.document)}::jsonb,
          ${manifest.schemaVersion}, ${JSON.stringify(manifest.warnings)}::jsonb, ${by})
        RETURNING "id"`;
      await refreshAgent(tx, agent.id);
      return { agent: await agentById(tx, agent.id), versionId: version.id, created };
    });
  }

  async sizes(ids: string[]): Promise<Map<string, number>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db.$queryRaw<Array<{ id: string; size: number }>>`
      SELECT "id", octet_length("manifestBytes")::int AS size FROM "registry"."AgentVersion" WHERE "id" = ANY(${ids}::uuid[])`;
    return new Map(rows.map((row) => [row.id, row.size]));
  }

  async row(id: string): Promise<VersionRow> {
    const [row] = await this.db.$queryRaw<VersionRow[]>`
      SELECT "id", "agentId", "version", "prerelease", "format", "digest", "convertedDigest", "schemaVersion", "warnings", "publishedBy",
             "publishedAt", "unpublishedAt", "unpublishedBy", octet_length("manifestBytes")::int AS size
      FROM "registry"."AgentVersion" WHERE "id" = ${id}::uuid`;
    return { ...row, publishedAt: new Date(row.publishedAt), unpublishedAt: row.unpublishedAt ? new Date(row.unpublishedAt) : null };
  }

  /** The status of the most recent certification request per version. */
  async certificationStatus(agentId: string): Promise<Map<string, string>> {
    const rows = await this.db.certification.findMany({ where: { agentId }, select: { version: true, status: true }, orderBy: { requestedAt: 'asc' } });
    return new Map(rows.map((row) => [row.version, row.status]));
  }

  /** An agent's versions (without bytes), highest first. */
  async list(agentId: string, options: { unpublished: boolean; prerelease: boolean }) {
    return (
      await this.db.agentVersion.findMany({
        where: { agentId, ...(!options.unpublished && { unpublishedAt: null }), ...(!options.prerelease && { prerelease: false }) },
        select: METADATA,
      })
    ).sort(bySemverDesc);
  }

  /** One version with its manifest document. */
  findWithDocument(agentId: string, version: string) {
    return this.db.agentVersion.findUnique({ where: { agentId_version: { agentId, version } }, select: { ...METADATA, document: true } });
  }

  /** Whether a version exists, and when it was unpublished. */
  findState(agentId: string, version: string) {
    return this.db.agentVersion.findUnique({ where: { agentId_version: { agentId, version } }, select: { unpublishedAt: true } });
  }

  /**
   * The stored bytes of both representations of a published version: one query on the hot path
   * (agent and version joined, `latest` resolved in SQL).
   */
  async manifest(namespace: string, name: string, requested: string): Promise<StoredManifest | undefined> {
    const [hit] = await this.db.$queryRaw<Array<Omit<StoredManifest, 'format'> & { format: string }>>`
      SELECT a."id" AS "agentId", v."version", v."manifestBytes", v."format", v."digest", v."convertedBytes", v."convertedDigest"
      FROM "registry"."Agent" a JOIN "registry"."AgentVersion" v ON v."agentId" = a."id"
      WHERE a."namespace" = ${namespace} AND a."name" = ${name} AND a."deletedAt" IS NULL AND v."unpublishedAt" IS NULL
        AND v."version" = (CASE WHEN ${requested} = 'latest' THEN a."latestVersion" ELSE ${requested} END)`;
    return hit ? { ...hit, format: hit.format as 'json' | 'yaml' } : undefined;
  }

  /** Unpublishes a version (tombstone); 404 when it does not exist or already was. */
  async unpublish(agentId: string, version: string, by: string, label: string): Promise<void> {
    await this.db.$transaction(async (tx) => {
      await lockAgent(tx, agentId);
      const row = await tx.agentVersion.findUnique({ where: { agentId_version: { agentId, version } }, select: { id: true, unpublishedAt: true } });
      if (!row || row.unpublishedAt) throw notFound(`Version ${version} of ${label} not found`, row ? { unpublished: true } : undefined);
      await tx.agentVersion.update({ where: { id: row.id }, data: { unpublishedAt: new Date(), unpublishedBy: by } });
      await refreshAgent(tx, agentId);
    });
  }
}
