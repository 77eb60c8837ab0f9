import type { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/prisma/client';

/** The registry's Prisma client over the adapter the bootstrap configured (schema `registry`). */
export const createDatabase = (adapter: PrismaPg) => new PrismaClient({ adapter });
export type Db = ReturnType<typeof createDatabase>;

/** A unique-constraint violation: P2002 from a model query, SQLSTATE 23505 inside a raw one (P2010). */
export function isUniqueViolation(error: unknown): boolean {
  const known = error as { code?: string; meta?: { code?: string; driverAdapterError?: { cause?: { originalCode?: string } } } } | undefined;
  return (
    known?.code === 'P2002' || (known?.code === 'P2010' && (known.meta?.code === '23505' || known.meta?.driverAdapterError?.cause?.originalCode === '23505'))
  );
}
