import type { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/prisma/client';

/** The auth service's Prisma client over the adapter the bootstrap configured (schema `auth`). */
export const createDatabase = (adapter: PrismaPg) => new PrismaClient({ adapter });
export type Db = ReturnType<typeof createDatabase>;
export type AuthDatabase = Db;
export type { Prisma } from './generated/prisma/client';
