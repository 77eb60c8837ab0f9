import type { PrismaPg } from '@prisma/adapter-pg';
import { Pool } from 'pg';
import { PrismaClient } from './generated/prisma/client';

/** The workers service's Prisma client, bound to its own Postgres schema `workers`. */
export const createDatabase = (adapter: PrismaPg) => new PrismaClient({ adapter });
export type Db = ReturnType<typeof createDatabase>;
/** A Prisma interactive transaction of this client. */
export type Tx = Parameters<Parameters<Db['$transaction']>[0]>[0];

/** A unique-constraint violation: P2002 from a model query, SQLSTATE 23505 inside a raw one (P2010). */
export function isUniqueViolation(error: unknown): boolean {
  const known = error as { code?: string; meta?: { code?: string; driverAdapterError?: { cause?: { originalCode?: string } } } } | undefined;
  return (
    known?.code === 'P2002' || (known?.code === 'P2010' && (known.meta?.code === '23505' || known.meta?.driverAdapterError?.cause?.originalCode === '23505'))
  );
}

/**
 * A plain pg pool on the same database and schema, for the engine's per-step statements (see
 * EngineRepository): the same search path and statement timeout as the Prisma client's pool.
 */
export function createSqlPool(databaseUrl: string, options: { poolSize: number; statementTimeoutMs: number }): Pool {
  const pool = new Pool({
    connectionString: databaseUrl,
    max: options.poolSize,
    connectionTimeoutMillis: 5000,
    options: `-c search_path="workers" -c statement_timeout=${options.statementTimeoutMs}`,
  });
  pool.on('error', () => undefined);
  return pool;
}
