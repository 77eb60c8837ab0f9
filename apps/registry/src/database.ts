import { prismaAdapter } from '@platform/service-kit';
import { PrismaClient } from './generated/prisma/client';

export type Db = PrismaClient;

/** The registry's Prisma client, bound to its own Postgres schema `registry`. */
export function createDb(databaseUrl: string, poolSize = 10): Db {
  return new PrismaClient({ adapter: prismaAdapter(databaseUrl, 'registry', poolSize) });
}

/** Prisma's unique-constraint violation. */
export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string } | undefined)?.code === 'P2002';
}
