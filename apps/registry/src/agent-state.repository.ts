import semver from 'semver';
import { Prisma, type Agent, type Namespace } from './generated/prisma/client';
import { isUniqueViolation } from '@platform/http';
import type { Db } from './database';
import { EMPTY_SUMMARY, searchTerms, summarizeManifest } from './manifest-summary';

/**
 * The agent row's shared state, used inside the transactions of several resources (publishing a
 * version, unpublishing, certification results, agent changes): the row lock, the recomputation of
 * what an agent shows from its versions, and the raw agent read of the hot paths.
 */
export type Tx = Prisma.TransactionClient;

export type AgentWithOwner = Agent & { ns: Pick<Namespace, 'ownerSub' | 'team'> };

/**
 * The columns of an agent and its namespace owner for raw reads. The hot read paths (get, search,
 * manifest fetch) use one `$queryRaw` each: Prisma's model queries cost several times the CPU
 * of a raw query with the driver adapter (see apps/registry/README.md, Performance).
 */
export const AGENT_COLUMNS = Prisma.sql`
  a."id", a."namespace", a."name", a."displayName", a."summary", a."homepage", a."repository", a."keywords",
  a."declaredCompliance", a."latestVersion", a."description", a."kind", a."agentKind", a."agentType", a."tier", a."status",
  a."capabilities", a."compliance", a."tags", a."labels", a."searchTerms", a."certified", a."certifiedVersion", a."createdBy",
  a."createdAt", a."updatedAt", a."deletedAt", n."ownerSub", n."team" AS "namespaceTeam"`;

export type AgentRow = Omit<AgentWithOwner, 'ns'> & { ownerSub: string; namespaceTeam: string | null };

export function fromRow(row: AgentRow): AgentWithOwner {
  const { ownerSub, namespaceTeam, ...agent } = row;
  // Prisma stores an unset scalar list as NULL and reads it as []; raw reads do the same here.
  for (const list of ['keywords', 'declaredCompliance', 'capabilities', 'compliance', 'tags'] as const) agent[list] ??= [];
  return {
    ...agent,
    createdAt: new Date(agent.createdAt),
    updatedAt: new Date(agent.updatedAt),
    deletedAt: agent.deletedAt ? new Date(agent.deletedAt) : null,
    ns: { ownerSub, team: namespaceTeam ?? null },
  } as AgentWithOwner;
}

/** An agent with its owner by id (deleted or not). */
export async function agentById(tx: Tx | Db, id: string): Promise<AgentWithOwner> {
  const [row] = await tx.$queryRaw<AgentRow[]>`
    SELECT ${AGENT_COLUMNS} FROM "registry"."Agent" a JOIN "registry"."Namespace" n ON n."name" = a."namespace" WHERE a."id" = ${id}::uuid`;
  return fromRow(row);
}

/**
 * Locks an agent's row for the rest of the transaction, so that concurrent publishes, unpublishes
 * and certification results of one agent apply one after another and `latest` stays right.
 */
export async function lockAgent(tx: Tx, agentId: string): Promise<void> {
  await tx.$queryRaw`SELECT "id" FROM "registry"."Agent" WHERE "id" = ${agentId}::uuid FOR UPDATE`;
}

/** Highest first. */
export const bySemverDesc = (a: { version: string }, b: { version: string }) => semver.rcompare(a.version, b.version);

/**
 * Recomputes what an agent shows from its published versions: `latestVersion` (highest
 * non-prerelease), the listing and search fields from the manifest of that version (or of the
 * highest prerelease when there is no release), and whether it is certified. Call with the
 * agent locked.
 */
export async function refreshAgent(tx: Tx, agentId: string): Promise<void> {
  const [agent] = await tx.$queryRaw<Array<{ namespace: string; keywords: string[] | null; declaredCompliance: string[] | null }>>`
    SELECT "namespace", "keywords", "declaredCompliance" FROM "registry"."Agent" WHERE "id" = ${agentId}::uuid`;
  const published = (
    await tx.$queryRaw<Array<{ id: string; version: string; prerelease: boolean }>>`
      SELECT "id", "version", "prerelease" FROM "registry"."AgentVersion" WHERE "agentId" = ${agentId}::uuid AND "unpublishedAt" IS NULL`
  ).sort(bySemverDesc);
  const latest = published.find((version) => !version.prerelease);
  const current = latest ?? published[0];
  const [documentRow] = current
    ? await tx.$queryRaw<Array<{ document: Record<string, unknown> }>>`SELECT "document" FROM "registry"."AgentVersion" WHERE "id" = ${current.id}::uuid`
    : [];
  const summary = documentRow ? summarizeManifest(documentRow.document) : EMPTY_SUMMARY;
  const compliance = [...new Set([...(agent.declaredCompliance ?? []), ...summary.compliance])];
  const passed = new Set(
    (
      await tx.$queryRaw<Array<{ version: string }>>`
      SELECT DISTINCT "version" FROM "registry"."Certification" WHERE "agentId" = ${agentId}::uuid AND "status" = 'passed'`
    ).map((row) => row.version),
  );
  const certifiedVersion = published.find((version) => passed.has(version.version))?.version ?? null;
  const latestVersion = latest?.version ?? null;
  await tx.$executeRaw`
    UPDATE "registry"."Agent" SET
      "latestVersion" = ${latestVersion}, "description" = ${summary.description}, "kind" = ${summary.kind},
      "agentKind" = ${summary.agentKind}, "agentType" = ${summary.agentType}, "tier" = ${summary.tier}, "status" = ${summary.status},
      "capabilities" = ${summary.capabilities}::text[], "tags" = ${summary.tags}::text[], "labels" = ${JSON.stringify(summary.labels)}::jsonb,
      "compliance" = ${compliance}::text[], "searchTerms" = ${searchTerms(agent.namespace, summary, agent.keywords ?? [], compliance)},
      "certifiedVersion" = ${certifiedVersion}, "certified" = ${certifiedVersion !== null && certifiedVersion === latestVersion},
      "updatedAt" = now()
    WHERE "id" = ${agentId}::uuid`;
}

/** Runs `work` in a transaction, once more when a concurrent insert won a unique-constraint race. */
export async function inTransaction<T>(db: Db, work: (tx: Tx) => Promise<T>): Promise<T> {
  try {
    return await db.$transaction(work);
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    return db.$transaction(work);
  }
}
