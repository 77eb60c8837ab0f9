import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';

export const testDatabaseUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/platform';
export const testRedisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A name no other test uses, so tests share the database without sharing data. */
export function uniqueName(prefix = 'test'): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}

export function testRedis(): Redis {
  return new Redis(testRedisUrl, { maxRetriesPerRequest: 1 });
}

/** Polls until `check` returns a value other than undefined/false, or fails after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 10_000, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value as T;
    } catch (error) {
      lastError = error;
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  throw new Error(`condition not met within ${timeoutMs} ms${lastError ? `: ${String(lastError)}` : ''}`);
}
