import type { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/prisma/client';

/**
 * How long one query may go unanswered before the request fails with 503 naming the database. The
 * pool's acquire timeout covers a new connection and Postgres's statement_timeout a slow statement,
 * but neither a query sent on an open connection to a Postgres that went silent (a partition):
 * without this, that request waited for as long as the TCP connection lived (issue 27: /login).
 */
export const QUERY_DEADLINE_MS = 5_000;

/** A query that got no answer in time: `P1008` ("operations timed out"), which the error handler answers 503 for the database. */
export class QueryDeadlineError extends Error {
  readonly code = 'P1008';
  constructor(operation: string, ms: number) {
    super(`PostgreSQL did not answer ${operation} within ${ms} ms`);
    this.name = 'QueryDeadlineError';
  }
}

function withDeadline<T>(work: Promise<T>, operation: string, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new QueryDeadlineError(operation, ms)), ms);
  });
  // The abandoned query settles when Postgres speaks again (or its connection dies): nobody awaits it then.
  work.catch(() => undefined);
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

/** The auth service's Prisma client over the adapter the bootstrap configured (schema `auth`), every query under QUERY_DEADLINE_MS. */
export const createDatabase = (adapter: PrismaPg, deadlineMs = QUERY_DEADLINE_MS) =>
  new PrismaClient({ adapter }).$extends({
    name: 'query-deadline',
    query: {
      $allOperations({ model, operation, args, query }) {
        return withDeadline(query(args), model ? `${model}.${operation}` : operation, deadlineMs);
      },
    },
  });
export type Db = ReturnType<typeof createDatabase>;
export type AuthDatabase = Db;
export type { Prisma } from './generated/prisma/client';
