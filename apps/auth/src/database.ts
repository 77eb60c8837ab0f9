import { prismaAdapter } from '@platform/data';
import { PrismaClient } from './generated/prisma/client';

export type AuthDatabase = PrismaClient;
export type { Prisma } from './generated/prisma/client';

export function createAuthDatabase(databaseUrl: string): AuthDatabase {
  return new PrismaClient({ adapter: prismaAdapter(databaseUrl, 'auth') });
}
