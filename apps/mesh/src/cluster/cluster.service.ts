import type { Logger } from '@platform/telemetry';
import type { Redis } from 'ioredis';
import type { ClusterRepository, FencedWrites } from './cluster.repository';

// Takes the lease if nobody holds it, with a new fencing token from a counter that only grows.
const ACQUIRE = `
if redis.call('exists', KEYS[1]) == 1 then return 0 end
local token = redis.call('incr', KEYS[2])
redis.call('set', KEYS[1], ARGV[1] .. '|' .. token, 'PX', ARGV[2])
return token`;
// Extends the lease only while this node still holds it with this token.
const RENEW = `
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end
return 0`;
const RELEASE = `
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end
return 0`;

export interface ClusterOptions {
  cluster: string;
  nodeId: string;
  host: string;
  httpPort: () => number;
  grpcPort: () => number;
  leaseMs: number;
  heartbeatMs: number;
}

export interface LeaderView {
  leader: string | null;
  token: number | null;
  expiresInMs: number | null;
}

/**
 * This node in the cluster: its row in Postgres (heartbeat), and one leader at a time through a
 * Redis lease whose fencing token (a counter that only grows) every leader-only write carries.
 */
export class ClusterService {
  private token: number | null = null;
  private timer?: NodeJS.Timeout;
  private stopped = false;
  private ticking?: Promise<void>;
  private readonly leadershipListeners: Array<(leader: boolean) => void> = [];
  private readonly leaseKey: string;
  private readonly tokenKey: string;

  constructor(
    private readonly repository: ClusterRepository,
    private readonly redis: Redis,
    private readonly options: ClusterOptions,
    private readonly logger: Logger,
  ) {
    this.leaseKey = `mesh:${options.cluster}:leader`;
    this.tokenKey = `mesh:${options.cluster}:leader:token`;
  }

  get nodeId(): string {
    return this.options.nodeId;
  }

  get isLeader(): boolean {
    return this.token !== null;
  }

  get fencingToken(): number | null {
    return this.token;
  }

  onLeadership(listener: (leader: boolean) => void): void {
    this.leadershipListeners.push(listener);
  }

  async start(): Promise<void> {
    await this.repository.upsertNode({ id: this.nodeId, host: this.options.host, httpPort: this.options.httpPort(), grpcPort: this.options.grpcPort() });
    await this.tick();
    this.loop();
  }

  private loop(): void {
    if (this.stopped) return;
    this.timer = setTimeout(
      () => {
        this.ticking = this.tick().finally(() => this.loop());
      },
      Math.max(50, Math.min(this.options.heartbeatMs, this.options.leaseMs / 3)),
    );
    this.timer.unref();
  }

  /** Heartbeat, then renew the lease (or try to take it). */
  async tick(): Promise<void> {
    await this.repository.touch(this.nodeId).catch((error) => this.logger.warn({ err: error }, 'node heartbeat failed'));
    try {
      if (this.token !== null) {
        const renewed = await this.redis.eval(RENEW, 1, this.leaseKey, this.leaseValue(this.token), String(this.options.leaseMs));
        if (renewed !== 1) this.setToken(null);
      }
      if (this.token === null) await this.tryAcquire();
    } catch (error) {
      // Redis unreachable: a leader that cannot renew must assume it lost the lease.
      if (this.token !== null) this.setToken(null);
      this.logger.warn({ err: error }, 'leader lease check failed');
    }
  }

  private async tryAcquire(): Promise<void> {
    if (this.stopped) return;
    const token = Number(await this.redis.eval(ACQUIRE, 2, this.leaseKey, this.tokenKey, this.nodeId, String(this.options.leaseMs)));
    if (token > 0) this.setToken(token);
  }

  private setToken(token: number | null): void {
    const was = this.token !== null;
    this.token = token;
    if (was !== (token !== null)) {
      this.logger.info({ nodeId: this.nodeId, token }, token !== null ? 'became mesh leader' : 'lost mesh leadership');
      for (const listener of this.leadershipListeners) listener(token !== null);
    }
  }

  private leaseValue(token: number): string {
    return `${this.nodeId}|${token}`;
  }

  async leader(): Promise<LeaderView> {
    const [value, ttl] = await Promise.all([this.redis.get(this.leaseKey), this.redis.pttl(this.leaseKey)]);
    if (!value) return { leader: null, token: null, expiresInMs: null };
    const at = value.lastIndexOf('|');
    return { leader: value.slice(0, at), token: Number(value.slice(at + 1)), expiresInMs: ttl > 0 ? ttl : null };
  }

  /** The highest fencing token ever issued (the term). */
  async term(): Promise<number> {
    return Number((await this.redis.get(this.tokenKey)) ?? 0);
  }

  /** Forces a new election: the current lease is dropped, and this node stands at once. */
  async elect(): Promise<LeaderView> {
    await this.redis.del(this.leaseKey);
    this.setToken(null);
    await this.tryAcquire();
    return this.leader();
  }

  /** Runs a leader-only write with this node's fencing token; refused when not leader or deposed. */
  async asLeader<T>(write: (tx: FencedWrites) => Promise<T>): Promise<{ token: number; result: T }> {
    const token = this.token;
    if (token === null) throw new NotLeaderError((await this.leader()).leader);
    const result = await this.repository.fenced(token, this.nodeId, write);
    return { token, result };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    // A tick under way could take the lease again after this node let it go.
    await this.ticking?.catch(() => undefined);
    if (this.token !== null) await this.redis.eval(RELEASE, 1, this.leaseKey, this.leaseValue(this.token)).catch(() => undefined);
    this.setToken(null);
    await this.repository.removeNode(this.nodeId).catch(() => undefined);
  }
}

export class NotLeaderError extends Error {
  override name = 'NotLeaderError';
  constructor(readonly leader: string | null) {
    super(leader ? `this node is not the leader; ${leader} is` : 'there is no leader at the moment');
  }
}
