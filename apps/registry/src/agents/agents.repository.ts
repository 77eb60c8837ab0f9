import type { registry } from '@platform/contracts';
import { Prisma } from '../generated/prisma/client';
import type { Db } from '../database';
import { AGENT_COLUMNS, agentById, fromRow, lockAgent, refreshAgent, type AgentRow, type AgentWithOwner } from '../agent-state.repository';
import { prefixQuery, type AgentFilters, type AgentQuery } from './agent-query';

export interface AgentQueryResult {
  items: Array<AgentWithOwner & { rank: number }>;
  total: number;
}

function filterConditions(filters: AgentFilters): Prisma.Sql[] {
  const conditions: Prisma.Sql[] = [Prisma.sql`a."deletedAt" IS NULL`];
  if (filters.namespace !== undefined) conditions.push(Prisma.sql`a."namespace" = ${filters.namespace}`);
  if (filters.certified !== undefined) conditions.push(Prisma.sql`a."certified" = ${filters.certified}`);
  if (filters.compliance !== undefined) conditions.push(Prisma.sql`a."compliance" @> ARRAY[${filters.compliance.toLowerCase()}]::text[]`);
  if (filters.capability !== undefined) conditions.push(Prisma.sql`a."capabilities" @> ARRAY[${filters.capability}]::text[]`);
  if (filters.kind !== undefined) conditions.push(Prisma.sql`a."kind" = ${filters.kind}`);
  if (filters.agentKind !== undefined) conditions.push(Prisma.sql`a."agentKind" = ${filters.agentKind}`);
  if (filters.tier !== undefined) conditions.push(Prisma.sql`a."tier" = ${filters.tier}`);
  return conditions;
}

/** The agents table and the namespaces that own them. */
export class AgentsRepository {
  constructor(private readonly db: Db) {}

  /** A live (not deleted) agent with its owner. */
  async findLive(namespace: string, name: string): Promise<AgentWithOwner | undefined> {
    const [row] = await this.db.$queryRaw<AgentRow[]>`
      SELECT ${AGENT_COLUMNS} FROM "registry"."Agent" a JOIN "registry"."Namespace" n ON n."name" = a."namespace"
      WHERE a."namespace" = ${namespace} AND a."name" = ${name} AND a."deletedAt" IS NULL`;
    return row ? fromRow(row) : undefined;
  }

  /**
   * Lists or searches agents: Postgres full-text search (the generated `searchVector` column and
   * its GIN index) ranked with ts_rank, plus exact filters, paged, with the total. Without text the
   * order is namespace then name.
   */
  async query(query: AgentQuery): Promise<AgentQueryResult> {
    const conditions = filterConditions(query);
    let tsquery: Prisma.Sql | undefined;
    if (query.text !== undefined) {
      const terms = prefixQuery(query.text);
      if (!terms) return { items: [], total: 0 };
      tsquery = Prisma.sql`to_tsquery('english', ${terms})`;
      conditions.push(Prisma.sql`a."searchVector" @@ ${tsquery}`);
    }
    const where = Prisma.join(conditions, ' AND ');
    const rank = tsquery ? Prisma.sql`ts_rank(a."searchVector", ${tsquery})` : Prisma.sql`0`;
    const order = tsquery ? Prisma.sql`rank DESC, a."namespace", a."name"` : Prisma.sql`a."namespace", a."name"`;
    const rows = await this.db.$queryRaw<Array<AgentRow & { rank: number; total: bigint }>>`
      SELECT ${AGENT_COLUMNS}, ${rank}::float8 AS rank, count(*) OVER () AS total
      FROM "registry"."Agent" a JOIN "registry"."Namespace" n ON n."name" = a."namespace"
      WHERE ${where}
      ORDER BY ${order}
      LIMIT ${query.limit} OFFSET ${query.offset}`;
    let total = rows.length > 0 ? Number(rows[0].total) : 0;
    if (rows.length === 0 && query.offset > 0) {
      const [counted] = await this.db.$queryRaw<Array<{ total: bigint }>>`SELECT count(*) AS total FROM "registry"."Agent" a WHERE ${where}`;
      total = Number(counted.total);
    }
    const items = rows.map(({ rank: rowRank, total: _total, ...row }) => ({ ...fromRow(row), rank: Number(rowRank) }));
    return { items, total };
  }

  /**
   * The owner of a namespace; a namespace that does not exist yet is created for `claimant`
   * (INSERT ... ON CONFLICT DO NOTHING: racing first publishers agree on one owner).
   */
  /** The namespace's owner and team; a new namespace becomes `claim`'s (the first of racing claimants wins). */
  async namespaceOwnership(namespace: string, claim: { owner: string; team: string | null }): Promise<{ ownerSub: string; team: string | null }> {
    const select = () =>
      this.db.$queryRaw<Array<{ ownerSub: string; team: string | null }>>`SELECT "ownerSub", "team" FROM "registry"."Namespace" WHERE "name" = ${namespace}`;
    let [row] = await select();
    if (!row) {
      await this.db
        .$executeRaw`INSERT INTO "registry"."Namespace" ("name", "ownerSub", "team") VALUES (${namespace}, ${claim.owner}, ${claim.team}) ON CONFLICT ("name") DO NOTHING`;
      [row] = await select();
    }
    return row;
  }

  /** Changes agent-level metadata and recomputes what the agent shows. */
  update(agentId: string, changes: registry.AgentUpdateBody): Promise<AgentWithOwner> {
    return this.db.$transaction(async (tx) => {
      await lockAgent(tx, agentId);
      const { compliance, ...rest } = changes;
      await tx.agent.update({
        where: { id: agentId },
        data: { ...rest, ...(compliance !== undefined && { declaredCompliance: [...new Set(compliance)] }) },
      });
      await refreshAgent(tx, agentId);
      return agentById(tx, agentId);
    });
  }

  /** Unpublishes every version and hides the agent; the rows stay as tombstones. */
  async remove(agentId: string, by: string): Promise<void> {
    await this.db.$transaction(async (tx) => {
      await lockAgent(tx, agentId);
      await tx.agentVersion.updateMany({ where: { agentId, unpublishedAt: null }, data: { unpublishedAt: new Date(), unpublishedBy: by } });
      await tx.agent.update({ where: { id: agentId }, data: { deletedAt: new Date() } });
      await refreshAgent(tx, agentId);
    });
  }
}
