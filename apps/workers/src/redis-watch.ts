import { dependencyUnavailable } from '@platform/http';
import type { Logger } from '@platform/telemetry';

/** The parts of an ioredis connection (or BullMQ's proxy of one) the watch uses. */
export interface WatchedConnection {
  status: string;
  options: { commandTimeout?: number };
  ping(): Promise<unknown>;
  disconnect(reconnect?: boolean): void;
}

export interface RedisWatchOptions {
  /** How long a command, and the watch's PING, may wait for Redis (WORKERS_REDIS_TIMEOUT_MS). */
  timeoutMs: number;
  /** How often each connection is pinged (WORKERS_REDIS_CHECK_MS). */
  intervalMs: number;
}

/** `work`, or the 503 naming `cache` when Redis has not answered within `ms` (the work is left to finish or fail on its own). */
export function withRedisTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(dependencyUnavailable('cache')), ms);
  });
  work.catch(() => undefined);
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

interface Watched {
  name: string;
  connection: () => Promise<WatchedConnection> | WatchedConnection | undefined;
  ping: boolean;
  /** Since when the connection has been connected but not ready (its ready check unanswered). */
  connectingSince?: number;
}

/**
 * Finds and replaces the service's dead Redis connections. A connection whose socket stays open
 * but carries nothing (a partition, a middlebox that dropped the flow) looks `ready` to ioredis
 * for good, so commands wait forever and the connection never comes back; a new connection over
 * such a path waits for the answer to its ready check for good. Every `intervalMs`, each watched
 * connection that is ready is pinged, and one that does not answer within `timeoutMs`, or that has
 * waited longer than that for its ready check, is dropped and reconnected (ioredis resubscribes a
 * subscriber's channels on its own). Command connections also get ioredis' `commandTimeout`, so
 * no command waits longer than `timeoutMs`.
 *
 * The shared libraries create these connections without either (libs/data, libs/queues), so the
 * service sets them on the connections it is given.
 */
export class RedisWatch {
  private readonly watched: Watched[] = [];
  private readonly pinging = new Set<string>();
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly logger: Logger,
    private readonly options: RedisWatchOptions,
  ) {}

  /**
   * Watches a connection. `commands`: it carries ordinary commands and gets the command timeout
   * (not a subscriber, nor a connection BullMQ manages). `ping`: false for a connection that blocks
   * on purpose (BullMQ's blocking connection, which has its own watchdog once it is ready): only
   * a ready check that never ends is caught there.
   */
  watch(name: string, connection: () => Promise<WatchedConnection> | WatchedConnection | undefined, { commands = true, ping = true } = {}): void {
    this.watched.push({ name, connection, ping });
    if (commands)
      void Promise.resolve(connection()).then(
        (client) => client && (client.options.commandTimeout = this.options.timeoutMs),
        () => undefined,
      );
  }

  start(): void {
    this.timer = setInterval(() => {
      for (const entry of this.watched) void this.check(entry);
    }, this.options.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** Checks one connection; drops and reconnects it when it is ready yet silent, or stuck before ready. */
  private async check(entry: Watched): Promise<void> {
    const { name } = entry;
    if (this.pinging.has(name)) return;
    this.pinging.add(name);
    try {
      const client = await entry.connection();
      if (!client) return;
      if (client.status === 'connect') {
        entry.connectingSince ??= Date.now();
        if (Date.now() - entry.connectingSince > this.options.timeoutMs) {
          this.logger.warn({ connection: name, timeoutMs: this.options.timeoutMs }, 'Redis connection got no answer to its ready check; reconnecting');
          entry.connectingSince = undefined;
          client.disconnect(true);
        }
        return;
      }
      entry.connectingSince = undefined;
      // Connecting or reconnecting: ioredis is already at it.
      if (client.status !== 'ready' || !entry.ping) return;
      const answered = await withRedisTimeout(client.ping(), this.options.timeoutMs).then(
        () => true,
        () => false,
      );
      if (!answered && client.status === 'ready') {
        this.logger.warn({ connection: name, timeoutMs: this.options.timeoutMs }, 'Redis connection silent; reconnecting');
        client.disconnect(true);
      }
    } catch (error) {
      this.logger.debug({ err: error, connection: name }, 'Redis watch check failed');
    } finally {
      this.pinging.delete(name);
    }
  }
}
