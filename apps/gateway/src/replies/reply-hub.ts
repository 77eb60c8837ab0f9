import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Redis } from 'ioredis';

export type ReplyKind = 'execution' | 'task';
export interface Reply {
  output?: unknown;
  error?: string;
}

const CHANNEL = 'gateway:replies';

/**
 * How an agent answers a task the gateway sent it through the mesh: each task carries a reply
 * URL with a signed, expiring token naming it; the reply is published on Redis so that the
 * replica waiting for it (whichever received the reply) gets it at once.
 */
export class ReplyHub {
  private readonly waiters = new Map<string, (reply: Reply) => void>();
  private subscriber?: Redis;

  constructor(
    private readonly redis: Redis,
    private readonly secret: string,
    private readonly publicUrl: string,
    private readonly basePath: string,
  ) {}

  async start(): Promise<void> {
    this.subscriber = this.redis.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null });
    this.subscriber.on('message', (_channel: string, message: string) => {
      try {
        const { id, reply } = JSON.parse(message) as { id: string; reply: Reply };
        this.waiters.get(id)?.(reply);
      } catch {
        // A message that is not ours: ignored.
      }
    });
    await this.subscriber.subscribe(CHANNEL);
  }

  async stop(): Promise<void> {
    for (const resolve of this.waiters.values()) resolve({ error: 'the gateway is shutting down' });
    await this.subscriber?.quit().catch(() => undefined);
  }

  /** The URL an agent posts its answer to. */
  replyUrl(kind: ReplyKind, id: string, ttlMs: number): string {
    return `${this.publicUrl.replace(/\/+$/, '')}${this.basePath}/replies/${this.sign(kind, id, Date.now() + ttlMs)}`;
  }

  sign(kind: ReplyKind, id: string, expiresAt: number): string {
    const payload = Buffer.from(`${kind}.${id}.${expiresAt}`).toString('base64url');
    return `${payload}.${createHmac('sha256', this.secret).update(payload).digest('base64url')}`;
  }

  /** The task a token names, or undefined when it is forged or expired. */
  verify(token: string): { kind: ReplyKind; id: string } | undefined {
    const [payload, signature] = token.split('.');
    if (!payload || !signature) return undefined;
    const expected = createHmac('sha256', this.secret).update(payload).digest();
    const given = Buffer.from(signature, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    const [kind, id, expiresAt] = Buffer.from(payload, 'base64url').toString('utf8').split('.');
    if ((kind !== 'execution' && kind !== 'task') || !id || !(Number(expiresAt) > Date.now())) return undefined;
    return { kind, id };
  }

  /** Waits for the reply to `id`; call before sending the task. `undefined` after the timeout. */
  waitFor(id: string, timeoutMs: number): { reply: Promise<Reply | undefined>; cancel: () => void } {
    let cancel = () => undefined as void;
    const reply = new Promise<Reply | undefined>((resolve) => {
      const timer = setTimeout(() => finish(undefined), timeoutMs);
      const finish = (value: Reply | undefined) => {
        clearTimeout(timer);
        this.waiters.delete(id);
        resolve(value);
      };
      this.waiters.set(id, finish);
      cancel = () => finish(undefined);
    });
    return { reply, cancel };
  }

  /**
   * Takes the first reply to `id` (false for any later one) and hands it to its waiter. A waiter on
   * this replica gets it at once and the reply is marked taken without waiting; otherwise Redis
   * decides which reply is first (SET NX) and carries it to the replica that waits.
   */
  async take(id: string, reply: Reply, ttlMs: number): Promise<boolean> {
    const key = `gateway:reply:${id}`;
    const local = this.waiters.get(id);
    if (local) {
      local(reply);
      void this.redis.set(key, '1', 'PX', ttlMs).catch(() => undefined);
      return true;
    }
    if ((await this.redis.set(key, '1', 'PX', ttlMs, 'NX')) !== 'OK') return false;
    await this.redis.publish(CHANNEL, JSON.stringify({ id, reply }));
    return true;
  }
}
