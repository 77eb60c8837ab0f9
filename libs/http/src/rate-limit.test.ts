import { testRedis, uniqueName } from '@platform/testing';
import express from 'express';
import request from 'supertest';
import { errorHandler } from './error-handler';
import { createRateLimiter, rateLimit } from './rate-limit';
import { createLogger } from '@platform/telemetry';

describe('rateLimit', () => {
  const redis = testRedis();
  afterAll(() => redis.quit());

  const app = (points: number, burst?: number) => {
    const server = express();
    server.use(rateLimit({ redis, name: uniqueName('rl'), points, burst, windowSeconds: 60, key: () => 'one-caller' }));
    server.get('/', (_req, res) => res.json({ ok: true }));
    server.use(errorHandler(createLogger('rl-test', '0', 'silent')));
    return server;
  };

  it('admits exactly the announced burst, counting Remaining down to 0, then 429 with Retry-After', async () => {
    const server = app(5, 8);
    const answers = [];
    for (let i = 0; i < 9; i++) answers.push(await request(server).get('/'));
    expect(answers.map((res) => res.status)).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 429]);
    expect(answers.map((res) => res.headers['x-ratelimit-limit'])).toEqual(Array(9).fill('8'));
    expect(answers.map((res) => res.headers['x-ratelimit-remaining'])).toEqual(['7', '6', '5', '4', '3', '2', '1', '0', '0']);
    // 5 a minute refill one token every 12 s.
    expect(Number(answers[8]!.headers['retry-after'])).toBeGreaterThanOrEqual(11);
    expect(Number(answers[8]!.headers['retry-after'])).toBeLessThanOrEqual(12);
    expect(answers[8]!.body.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limited' });
    const reset = Number(answers[7]!.headers['x-ratelimit-reset']);
    expect(reset).toBeGreaterThan(Date.now() / 1000 + 90);
    expect(reset).toBeLessThanOrEqual(Date.now() / 1000 + 97);
  });

  it('keeps counting in Redis after Redis forgets its scripts (a restart, SCRIPT FLUSH)', async () => {
    const limiter = createRateLimiter({ redis, name: uniqueName('rl'), points: 5, windowSeconds: 3600 });
    const key = uniqueName('k');
    expect((await limiter.take(key)).remaining).toBe(4);
    await redis.script('FLUSH');
    expect((await limiter.take(key)).remaining).toBe(3);
    expect((await limiter.take(key)).remaining).toBe(2);
  });

  it('refills at the sustained rate', async () => {
    const limiter = createRateLimiter({ redis, name: uniqueName('rl'), points: 600, windowSeconds: 60, burst: 2 });
    const key = uniqueName('k');
    expect((await limiter.take(key)).allowed).toBe(true);
    expect((await limiter.take(key)).allowed).toBe(true);
    expect((await limiter.take(key)).allowed).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 120)); // 10 a second
    expect((await limiter.take(key)).allowed).toBe(true);
  });

  it('keeps limiting per process when Redis is down instead of failing requests', async () => {
    const down = testRedis();
    await down.quit();
    const limiter = createRateLimiter({ redis: down, name: uniqueName('rl'), points: 2, windowSeconds: 60 });
    const results = [await limiter.take('k'), await limiter.take('k'), await limiter.take('k')];
    expect(results.map((state) => state.allowed)).toEqual([true, true, false]);
    expect(results.map((state) => state.remaining)).toEqual([1, 0, 0]);
  });

  it('takes a token and reads a sorted-set score in one command: the score, or null for a member that is not there', async () => {
    const limiter = createRateLimiter({ redis, name: uniqueName('rl'), points: 3, windowSeconds: 3600 });
    const set = uniqueName('scores');
    await redis.zadd(set, 1234, 'present');
    const key = uniqueName('k');
    const present = await limiter.takeAndReadScore(key, set, 'present');
    expect(present).toMatchObject({ state: { allowed: true, remaining: 2 }, score: '1234' });
    expect(await limiter.takeAndReadScore(key, set, 'absent')).toMatchObject({ state: { allowed: true, remaining: 1 }, score: null });
    expect((await limiter.take(key)).remaining).toBe(0);
    expect((await limiter.takeAndReadScore(key, set, 'present')).state.allowed).toBe(false);
    await redis.del(set);
  });

  it('rejects a score read while Redis is down, still counting the request in the per-process bucket', async () => {
    const down = testRedis();
    await down.quit();
    const limiter = createRateLimiter({ redis: down, name: uniqueName('rl'), points: 2, windowSeconds: 60 });
    await expect(limiter.takeAndReadScore('k', 'set', 'member')).rejects.toThrow();
    expect((await limiter.take('k')).remaining).toBe(0);
  });
});
