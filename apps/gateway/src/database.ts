import type { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/prisma/client';

/** The gateway's Prisma client over the adapter the bootstrap configured (schema `gateway`). */
export const createDatabase = (adapter: PrismaPg) => new PrismaClient({ adapter });
export type Db = ReturnType<typeof createDatabase>;

/** A unique-constraint violation (P2002). */
export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string } | undefined)?.code === 'P2002';
}
