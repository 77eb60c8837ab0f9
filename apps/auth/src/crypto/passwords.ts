import type { WorkLimiter } from '@platform/http';
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Passwords hashed with scrypt, a memory-hard function (N=2^15, r=8: 32 MiB per hash), stored as
 * `scrypt$N$r$p$salt$hash` so the cost can be raised later without breaking old hashes.
 */
const COST = { N: 2 ** 15, r: 8, p: 1 };
const KEY_LENGTH = 32;

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, { ...options, maxmem: 256 * options.N! * options.r! }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await derive(password, salt, COST);
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await derive(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** A hash of a random password: verifying against it when a user is unknown costs the same time. */
let decoy: Promise<string> | undefined;
export function decoyPasswordHash(): Promise<string> {
  return (decoy ??= hashPassword(randomBytes(16).toString('hex')));
}

/**
 * Password work through one WorkLimiter: each scrypt holds 32 MiB while it runs, so a burst of
 * logins or user creations runs a bounded number at once, queues a bounded number, and answers
 * the rest 503 with Retry-After instead of letting memory grow with the burst.
 */
export class PasswordWork {
  constructor(private readonly limiter: WorkLimiter) {}

  /** Runs `work` (which may hash or verify one password) when a slot is free. */
  run<T>(work: () => Promise<T>): Promise<T> {
    return this.limiter.run(work);
  }

  hash(password: string): Promise<string> {
    return this.run(() => hashPassword(password));
  }
}
