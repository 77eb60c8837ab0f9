import type { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/prisma/client';

export const createDatabase = (adapter: PrismaPg) => new PrismaClient({ adapter });
export type Db = ReturnType<typeof createDatabase>;
