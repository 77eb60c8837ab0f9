import type { registry } from '@platform/contracts';
import { Prisma } from '../generated/prisma/client';
import type { Db } from '../database';
import { AGENT_COLUMNS, fromRow, type AgentRow } from '../agents/agent-rows';
import type { AgentWithOwner } from '../agents/agent-view';

export type AgentFilters = Omit<registry.AgentListQuery, 'limit' | 'offset'>;

export interface AgentQuery extends AgentFilters {
  /** Free text; absent for a plain listing. */
  text?: string;
  limit: number;
  offset: number;
}

export interface AgentQueryResult {
  items: Array<AgentWithOwner & { rank: number }>;
  total: number;
}

const MAX_TERMS = 16;

/**
 * Turns free text into a tsquery of prefix terms joined with AND (`code:* & review:*`), built
 * from letters and digits only so that no input can be a tsquery syntax error. Returns
 * undefined when the text holds no word at all.
 */
export function prefixQuery(text: string): string | undefined {
  const words = (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).slice(0, MAX_TERMS);
  return words.length > 0 ? words.map((word) => `${word}:*`).join(' & ') : undefined;
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

/**
 * Lists or searches agents: Postgres full-text search (the generated `searchVector` column and
 * its GIN index) ranked with ts_rank, plus exact filters, paged, with the total. Without text the
 * order is namespace then name.
 */
export async function queryAgents(db: Db, query: AgentQuery): Promise<AgentQueryResult> {
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
  const rows = await db.$queryRaw<Array<AgentRow & { rank: number; total: bigint }>>`
    SELECT ${AGENT_COLUMNS}, ${rank}::float8 AS rank, count(*) OVER () AS total
    FROM "registry"."Agent" a JOIN "registry"."Namespace" n ON n."name" = a."namespace"
    WHERE ${where}
    ORDER BY ${order}
    LIMIT ${query.limit} OFFSET ${query.offset}`;
  let total = rows.length > 0 ? Number(rows[0].total) : 0;
  if (rows.length === 0 && query.offset > 0) {
    const [counted] = await db.$queryRaw<Array<{ total: bigint }>>`SELECT count(*) AS total FROM "registry"."Agent" a WHERE ${where}`;
    total = Number(counted.total);
  }
  const items = rows.map(({ rank: rowRank, total: _total, ...row }) => ({ ...fromRow(row), rank: Number(rowRank) }));
  return { items, total };
}
