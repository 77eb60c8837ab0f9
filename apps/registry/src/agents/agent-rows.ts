import { Prisma } from '../generated/prisma/client';
import type { AgentWithOwner } from './agent-view';

/**
 * The columns of an agent and its namespace owner for raw reads. The hot read paths (get, search,
 * manifest fetch) use one `$queryRaw` each: Prisma's model queries cost several times the CPU
 * of a raw query with the driver adapter (see apps/registry/README.md, Performance).
 */
export const AGENT_COLUMNS = Prisma.sql`
  a."id", a."namespace", a."name", a."displayName", a."summary", a."homepage", a."repository", a."keywords",
  a."declaredCompliance", a."latestVersion", a."description", a."kind", a."agentKind", a."agentType", a."tier", a."status",
  a."capabilities", a."compliance", a."tags", a."labels", a."searchTerms", a."certified", a."certifiedVersion", a."createdBy",
  a."createdAt", a."updatedAt", a."deletedAt", n."ownerSub"`;

export type AgentRow = Omit<AgentWithOwner, 'ns'> & { ownerSub: string };

export function fromRow(row: AgentRow): AgentWithOwner {
  const { ownerSub, ...agent } = row;
  // Prisma stores an unset scalar list as NULL and reads it as []; raw reads do the same here.
  for (const list of ['keywords', 'declaredCompliance', 'capabilities', 'compliance', 'tags'] as const) agent[list] ??= [];
  return { ...agent, createdAt: new Date(agent.createdAt), updatedAt: new Date(agent.updatedAt), deletedAt: agent.deletedAt ? new Date(agent.deletedAt) : null, ns: { ownerSub } } as AgentWithOwner;
}
