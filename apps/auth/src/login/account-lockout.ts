import type { Redis } from 'ioredis';
import { createHash } from 'node:crypto';

/**
 * Reserve-then-verify in one Lua script: every attempt takes a slot before the password is
 * checked, so a burst of parallel guesses gets at most `threshold` verifications; the attempt
 * past it locks the account, each lock twice as long as the last (up to `maxSeconds`).
 */
const RESERVE = `
local lockTtl = redis.call('PTTL', KEYS[2])
if lockTtl > 0 then return {0, lockTtl} end
local attempts = redis.call('INCR', KEYS[1])
if attempts == 1 then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
if attempts > tonumber(ARGV[1]) then
  local locks = redis.call('INCR', KEYS[3])
  redis.call('EXPIRE', KEYS[3], 86400)
  local seconds = math.min(tonumber(ARGV[3]) * 2 ^ (locks - 1), tonumber(ARGV[4]))
  redis.call('SET', KEYS[2], '1', 'EX', seconds)
  redis.call('DEL', KEYS[1])
  return {0, seconds * 1000}
end
return {1, 0}
`;

export interface LockoutOptions {
  threshold: number;
  windowSeconds: number;
  baseSeconds: number;
  maxSeconds: number;
}

export type Reservation = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export class AccountLockout {
  constructor(
    private readonly redis: Redis,
    private readonly options: LockoutOptions,
  ) {}

  /** Keys by a hash of the username: the same for accounts that exist and ones that don't. */
  private keys(username: string): string[] {
    const id = createHash('sha256').update(username.toLowerCase()).digest('hex').slice(0, 32);
    return [`auth:lockout:attempts:${id}`, `auth:lockout:locked:${id}`, `auth:lockout:locks:${id}`];
  }

  async reserve(username: string): Promise<Reservation> {
    const { threshold, windowSeconds, baseSeconds, maxSeconds } = this.options;
    const [allowed, lockMs] = (await this.redis.eval(RESERVE, 3, ...this.keys(username), threshold, windowSeconds, baseSeconds, maxSeconds)) as [
      number,
      number,
    ];
    return allowed === 1 ? { allowed: true } : { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(lockMs / 1000)) };
  }

  /** A successful login clears the failures and the lock history. */
  async reset(username: string): Promise<void> {
    const [attempts, , locks] = this.keys(username);
    await this.redis.del(attempts!, locks!);
  }
}
