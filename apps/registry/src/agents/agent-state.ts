import semver from 'semver';
import { Prisma } from '../generated/prisma/client';
import type { Db } from '../database';
import { EMPTY_SUMMARY, searchTerms, summarizeManifest } from './manifest-summary';

export type Tx = Prisma.TransactionClient;

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
  const agent = await tx.agent.findUniqueOrThrow({ where: { id: agentId } });
  const published = (await tx.agentVersion.findMany({ where: { agentId, unpublishedAt: null }, select: { id: true, version: true, prerelease: true } })).sort(bySemverDesc);
  const latest = published.find((version) => !version.prerelease);
  const current = latest ?? published[0];
  const document = current ? (await tx.agentVersion.findUniqueOrThrow({ where: { id: current.id }, select: { document: true } })).document : undefined;
  const summary = document ? summarizeManifest(document as Record<string, unknown>) : EMPTY_SUMMARY;
  const compliance = [...new Set([...agent.declaredCompliance, ...summary.compliance])];
  const passed = new Set(
    (await tx.certification.findMany({ where: { agentId, status: 'passed' }, select: { version: true } })).map((certification) => certification.version),
  );
  const certifiedVersion = published.find((version) => passed.has(version.version))?.version ?? null;
  await tx.agent.update({
    where: { id: agentId },
    data: {
      latestVersion: latest?.version ?? null,
      description: summary.description,
      kind: summary.kind,
      agentKind: summary.agentKind,
      agentType: summary.agentType,
      tier: summary.tier,
      status: summary.status,
      capabilities: summary.capabilities,
      tags: summary.tags,
      labels: summary.labels,
      compliance,
      searchTerms: searchTerms(agent.namespace, summary, agent.keywords, compliance),
      certifiedVersion,
      certified: certifiedVersion !== null && certifiedVersion === (latest?.version ?? null),
    },
  });
}

/** Runs `work` in a transaction, once more when a concurrent insert won a unique-constraint race. */
export async function inTransaction<T>(db: Db, work: (tx: Tx) => Promise<T>): Promise<T> {
  try {
    return await db.$transaction(work);
  } catch (error) {
    if ((error as { code?: string }).code !== 'P2002') throw error;
    return db.$transaction(work);
  }
}
