import { bullmqConnection } from '@platform/data';
import type { ConnectionOptions } from 'bullmq';
import type { Redis, RedisOptions } from 'ioredis';

/**
 * What every Redis connection of the mesh gets so that a silent or half-dead Redis (a partition,
 * a connection that drops bytes but stays open) costs a request seconds, not minutes: a command
 * not answered within `timeoutMs` fails, and a socket that carried nothing back for that long
 * while a command waited is destroyed and replaced (ioredis reconnects).
 */
export function redisTimeouts(timeoutMs: number): Pick<RedisOptions, 'commandTimeout' | 'socketTimeout' | 'keepAlive'> {
  return { commandTimeout: timeoutMs, socketTimeout: timeoutMs, keepAlive: 5000 };
}

/**
 * The same for a connection someone else created (the bootstrap's `infra.redis`, which the health
 * check and the token revocations use too): ioredis reads these options on every command, and its
 * duplicates copy them.
 */
export function hardenRedis(redis: Redis, timeoutMs: number): Redis {
  Object.assign(redis.options, redisTimeouts(timeoutMs));
  return redis;
}

/**
 * BullMQ worker connections wait out reconnects (no per-command timeout: their blocking reads
 * wait up to 10 s by design), but a socket silent for longer than that is dead and replaced.
 */
export function workerConnection(redisUrl: string): ConnectionOptions {
  return { ...bullmqConnection(redisUrl, 'worker'), socketTimeout: 15_000, keepAlive: 5000 } as ConnectionOptions;
}

/**
 * A subscriber connection sends nothing on its own, so a dead one would go unnoticed: a PING every
 * `everyMs` lets the socket timeout find it (ioredis then reconnects and subscribes again).
 */
export function pingEvery(redis: Redis, everyMs: number): () => void {
  const timer = setInterval(() => void redis.ping().catch(() => undefined), everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
