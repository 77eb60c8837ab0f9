import { prismaAdapter } from '@platform/data';
import { PrismaClient } from './generated/prisma/client';

export type Db = PrismaClient;

/** The registry's Prisma client, bound to its own Postgres schema `registry`. */
export function createDb(databaseUrl: string, poolSize = 10): Db {
  return new PrismaClient({ adapter: prismaAdapter(databaseUrl, 'registry', poolSize) });
}

/** A unique-constraint violation: P2002 from a model query, SQLSTATE 23505 inside a raw one (P2010). */
export function isUniqueViolation(error: unknown): boolean {
  const known = error as { code?: string; meta?: { code?: string; driverAdapterError?: { cause?: { originalCode?: string } } } } | undefined;
  return known?.code === 'P2002' || (known?.code === 'P2010' && (known.meta?.code === '23505' || known.meta?.driverAdapterError?.cause?.originalCode === '23505'));
}
