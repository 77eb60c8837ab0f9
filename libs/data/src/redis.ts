import { Redis, type RedisOptions } from 'ioredis';
import type { ConnectionOptions } from 'bullmq';

/**
 * A Redis connection for commands: fails fast while disconnected (no offline queue), so a
 * request never hangs on a Redis outage. BullMQ workers need their own (see queues.ts).
 */
export function createRedis(url: string, options: RedisOptions = {}): Redis {
  // Auto-pipelining sends the commands of one event-loop tick in one write: fewer syscalls under load.
  const redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, enableAutoPipelining: true, ...options });
  // ioredis reconnects by itself and prints a stack per failed attempt when nobody listens. An
  // outage shows where it matters: waitForRedis at start-up, /health/ready, the failing command.
  redis.on('error', () => undefined);
  return redis;
}

/** Resolves once the connection is ready, or rejects with a message that says what to do. */
export async function waitForRedis(redis: Redis, url: string, timeoutMs = 5000): Promise<void> {
  if (redis.status === 'ready') return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(new DependencyUnavailableError(`Redis is not reachable at ${redactedUrl(url)}. ${startRedisHint(url)}`));
    }, timeoutMs);
    const onReady = () => {
      cleanup();
      resolve();
    };
    const cleanup = () => {
      clearTimeout(timer);
      redis.off('ready', onReady);
    };
    redis.on('ready', onReady);
  });
}

/** A dependency the service cannot start without is down; the message says how to start it. */
export class DependencyUnavailableError extends Error {
  override name = 'DependencyUnavailableError';
}

/**
 * BullMQ connection options from a Redis URL (user, password and database included). Workers block
 * on Redis and must wait out reconnects; producers fail fast instead.
 */
export function bullmqConnection(redisUrl: string, use: 'producer' | 'worker'): ConnectionOptions {
  const url = new URL(redisUrl);
  return {
    host: url.hostname,
    port: Number(url.port || 6379),
    ...(url.password && { password: decodeURIComponent(url.password) }),
    ...(url.username && { username: decodeURIComponent(url.username) }),
    db: Number(url.pathname.slice(1) || 0),
    ...(url.protocol === 'rediss:' && { tls: {} }),
    ...(use === 'worker' ? { maxRetriesPerRequest: null } : { enableOfflineQueue: false }),
    // BullMQ's own default backs off up to 20 s between reconnects, so queues stayed down for
    // seconds after Redis was back; a reconnect at least every second recovers at once.
    retryStrategy: bullmqRetryDelay,
  };
}

/** Milliseconds before reconnect attempt `times`: quickly at first, never more than a second apart. */
export function bullmqRetryDelay(times: number): number {
  return Math.min(100 * times, 1000);
}

/** Closes a Redis connection: QUIT when connected, otherwise stops its reconnect loop at once. */
export async function closeRedis(redis: Redis): Promise<void> {
  if (redis.status !== 'ready') return redis.disconnect();
  await redis.quit().catch(() => redis.disconnect());
}

/** The URL as it may be printed: no password. */
export function redactedUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}

/** How to start a local Redis on the port the URL names; a remote one is the operator's to start. */
function startRedisHint(url: string): string {
  const { hostname, port } = new URL(url);
  if (!['127.0.0.1', 'localhost', '::1', '[::1]'].includes(hostname)) return 'Check that it runs and that REDIS_URL is right.';
  return `Start it with: redis-server --daemonize yes --bind 127.0.0.1 --port ${port || 6379} --save "" --appendonly no`;
}
