import type { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/prisma/client';

/** The workers service's Prisma client, bound to its own Postgres schema `workers`. */
export const createDatabase = (adapter: PrismaPg) => new PrismaClient({ adapter });
export type Db = ReturnType<typeof createDatabase>;
/** A Prisma interactive transaction of this client. */
export type Tx = Parameters<Parameters<Db['$transaction']>[0]>[0];
