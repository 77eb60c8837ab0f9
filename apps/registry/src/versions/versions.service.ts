import type { registry } from '@platform/contracts';
import { badRequest, notFound } from '@platform/http';
import type { Db } from '../database';
import { assertOwner, type Caller } from '../access';
import { bySemverDesc, lockAgent, refreshAgent } from '../agents/agent-state';
import type { AgentWithOwner } from '../agents/agent-view';
import type { AgentsService } from '../agents/agents.service';
import type { AgentVersion } from '../generated/prisma/client';

/** A version row without its manifest bytes. */
export type VersionRow = Omit<AgentVersion, 'manifestBytes' | 'convertedBytes' | 'document'> & { size: number };

const METADATA = {
  id: true, agentId: true, version: true, prerelease: true, format: true, digest: true, convertedDigest: true, schemaVersion: true,
  warnings: true, publishedBy: true, publishedAt: true, unpublishedAt: true, unpublishedBy: true,
} as const;

export function versionBody(agent: AgentWithOwner, row: VersionRow, certification: string | null): registry.AgentVersion {
  return {
    namespace: agent.namespace,
    name: agent.name,
    version: row.version,
    prerelease: row.prerelease,
    latest: agent.latestVersion === row.version,
    format: row.format as 'json' | 'yaml',
    digest: row.digest,
    size: row.size,
    schemaVersion: row.schemaVersion,
    warnings: row.warnings as registry.AgentVersion['warnings'],
    publishedBy: row.publishedBy,
    publishedAt: row.publishedAt.toISOString(),
    unpublished: row.unpublishedAt !== null,
    unpublishedAt: row.unpublishedAt?.toISOString() ?? null,
    certification: certification as registry.AgentVersion['certification'],
    manifestUrl: `/api/v1/agents/${agent.namespace}/${agent.name}/versions/${row.version}/manifest`,
  };
}

/** Versions of an agent: list in semantic-version order, `latest`, one version, unpublish. */
export class VersionsService {
  constructor(
    private readonly db: Db,
    private readonly agents: AgentsService,
  ) {}

  private async sizes(ids: string[]): Promise<Map<string, number>> {
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

  async list(namespace: string, name: string, query: registry.VersionListQuery): Promise<registry.VersionPage> {
    const agent = await this.agents.get(namespace, name);
    const rows = (
      await this.db.agentVersion.findMany({
        where: { agentId: agent.id, ...(!query.unpublished && { unpublishedAt: null }), ...(!query.prerelease && { prerelease: false }) },
        select: METADATA,
      })
    ).sort(bySemverDesc);
    if (query.order === 'asc') rows.reverse();
    const page = rows.slice(query.offset, query.offset + query.limit);
    const [sizes, certifications] = await Promise.all([this.sizes(page.map((row) => row.id)), this.certificationStatus(agent.id)]);
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
    const row = await this.db.agentVersion.findUnique({ where: { agentId_version: { agentId: agent.id, version } }, select: { ...METADATA, document: true } });
    if (!row || row.unpublishedAt) throw notFound(`Version ${version} of ${namespace}/${name} not found`, row ? { unpublished: true } : undefined);
    const [sizes, certifications] = await Promise.all([this.sizes([row.id]), this.certificationStatus(agent.id)]);
    const { document, ...metadata } = row;
    return {
      agent,
      body: { ...versionBody(agent, { ...metadata, size: sizes.get(row.id) ?? 0 }, certifications.get(version) ?? null), manifest: document as Record<string, unknown> },
    };
  }

  /**
   * The stored bytes of both representations of a published version: one query on the hot path
   * (agent and version joined, `latest` resolved in SQL); the detailed lookups only explain a miss.
   */
  async manifest(namespace: string, name: string, requested: string) {
    const [hit] = await this.db.$queryRaw<
      Array<{ agentId: string; version: string; manifestBytes: Uint8Array; format: string; digest: string; convertedBytes: Uint8Array; convertedDigest: string }>
    >`
      SELECT a."id" AS "agentId", v."version", v."manifestBytes", v."format", v."digest", v."convertedBytes", v."convertedDigest"
      FROM "registry"."Agent" a JOIN "registry"."AgentVersion" v ON v."agentId" = a."id"
      WHERE a."namespace" = ${namespace} AND a."name" = ${name} AND a."deletedAt" IS NULL AND v."unpublishedAt" IS NULL
        AND v."version" = (CASE WHEN ${requested} = 'latest' THEN a."latestVersion" ELSE ${requested} END)`;
    if (hit) return { ...hit, format: hit.format as 'json' | 'yaml' };
    const { agent, version } = await this.resolve(namespace, name, requested);
    const row = await this.db.agentVersion.findUnique({ where: { agentId_version: { agentId: agent.id, version } }, select: { unpublishedAt: true } });
    throw notFound(`Version ${version} of ${namespace}/${name} not found`, row ? { unpublished: true } : undefined);
  }

  /** Unpublishes a version: it disappears from reads, its number stays taken (tombstone). */
  async unpublish(who: Caller, namespace: string, name: string, version: string): Promise<void> {
    if (version === 'latest') throw badRequest('Unpublish names an exact version, not latest');
    const agent = await this.agents.get(namespace, name);
    assertOwner(who, agent.ns.ownerSub, namespace);
    await this.db.$transaction(async (tx) => {
      await lockAgent(tx, agent.id);
      const row = await tx.agentVersion.findUnique({ where: { agentId_version: { agentId: agent.id, version } }, select: { id: true, unpublishedAt: true } });
      if (!row || row.unpublishedAt) throw notFound(`Version ${version} of ${namespace}/${name} not found`, row ? { unpublished: true } : undefined);
      await tx.agentVersion.update({ where: { id: row.id }, data: { unpublishedAt: new Date(), unpublishedBy: who.sub } });
      await refreshAgent(tx, agent.id);
    });
  }
}
