import { ApiError } from './errors';

/** Which of the service's stores an error says is unreachable, if it says so. */
export type Dependency = 'database' | 'cache';

const DATABASE_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections']);
const DATABASE_PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);
// 57014 statement timeout, 57P0x shutdown, 08xxx connection exceptions, 53300 too many connections.
const DATABASE_SQLSTATE = /^(57014|57P0[1-3]|08\d{3}|53300)$/;
const DATABASE_MESSAGE = /timeout exceeded when trying to connect|Connection terminated|Can't reach database server|ECONNREFUSED.*5432/i;
// ioredis' commandTimeout and socketTimeout: a Redis gone silent, or a connection dropping bytes.
const CACHE_MESSAGE =
  /Stream isn't writeable|Connection is closed|enableOfflineQueue|max retries per request|ECONNREFUSED.*6379|^Command timed out|^Socket timeout/i;

interface AdapterCause {
  kind?: string;
  code?: string;
  originalCode?: string;
}

interface ErrorLike {
  name?: string;
  code?: unknown;
  message?: unknown;
  cause?: unknown;
  meta?: { code?: string; driverAdapterError?: { cause?: AdapterCause } };
}

/**
 * Recognises an outage of Postgres (unreachable, pool exhausted, statement timeout) or Redis (no
 * connection) in what Prisma, the pg driver, ioredis or BullMQ threw, so that the caller gets a
 * 503 naming the dependency instead of a 500.
 */
export function unavailableDependency(error: unknown): Dependency | undefined {
  for (
    let current = error as ErrorLike | undefined, depth = 0;
    current && typeof current === 'object' && depth < 5;
    current = current.cause as ErrorLike, depth++
  ) {
    // Through a Prisma client the driver's error sits in meta; from the adapter itself, in cause.
    const adapterCause =
      current.meta?.driverAdapterError?.cause ?? (current.name === 'DriverAdapterError' ? (current.cause as AdapterCause | undefined) : undefined);
    if (adapterCause?.kind && DATABASE_KINDS.has(adapterCause.kind)) return 'database';
    if (DATABASE_SQLSTATE.test(String(adapterCause?.code ?? adapterCause?.originalCode ?? ''))) return 'database';
    if (typeof current.code === 'string' && (DATABASE_PRISMA_CODES.has(current.code) || DATABASE_SQLSTATE.test(current.code))) return 'database';
    if (current.name === 'PrismaClientInitializationError') return 'database';
    if (current.name === 'MaxRetriesPerRequestError') return 'cache';
    const message = typeof current.message === 'string' ? current.message : '';
    if (DATABASE_MESSAGE.test(message)) return 'database';
    if (CACHE_MESSAGE.test(message)) return 'cache';
  }
  return undefined;
}

/** The answer for a store that is down: 503 naming it, with a hint to retry. */
export function dependencyUnavailable(dependency: Dependency): ApiError {
  const name = dependency === 'database' ? 'PostgreSQL' : 'Redis';
  return new ApiError(503, 'api_error', 'service_unavailable', `${name} is unavailable; try again shortly`, { dependency }, { 'Retry-After': '5' });
}

/**
 * Whether the error is a unique-constraint violation (Prisma P2002, or SQLSTATE 23505 through the
 * driver adapter): two requests racing to create the same thing, one of which must lose with 409.
 */
export function isUniqueViolation(error: unknown): boolean {
  const current = error as ErrorLike | undefined;
  if (!current || typeof current !== 'object') return false;
  if (current.code === 'P2002' || current.code === '23505') return true;
  if (current.code === 'P2010' && current.meta?.code === '23505') return true;
  const adapterCause =
    current.meta?.driverAdapterError?.cause ?? (current.name === 'DriverAdapterError' ? (current.cause as AdapterCause | undefined) : undefined);
  return adapterCause?.code === '23505' || adapterCause?.originalCode === '23505';
}
