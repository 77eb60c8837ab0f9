import { runServiceProcess, testDatabaseUrl, testRedisUrl } from '@platform/testing';

const base = { LOG_LEVEL: 'silent', MIGRATE_ON_START: 'false', DATABASE_URL: testDatabaseUrl, REDIS_URL: testRedisUrl, PORT: '0' };
const lines = (text: string) => text.split('\n').filter((line) => line.trim() !== '');

/** A configuration error ends start-up with one line naming the variable, and a non-zero exit. */
describe('auth start-up with a bad configuration', () => {
  it('names a variable that does not parse, in one line without a stack', async () => {
    const run = await runServiceProcess('apps/auth/src/main.ts', { ...base, AUTH_ACCESS_TOKEN_TTL: 'an hour' });
    expect(run.code).not.toBe(0);
    expect(lines(run.stderr)).toEqual([expect.stringMatching(/^auth failed to start: .*AUTH_ACCESS_TOKEN_TTL/)]);
  });

  it('names AUTH_ENCRYPTION_KEY when production runs without one', async () => {
    const run = await runServiceProcess('apps/auth/src/main.ts', { ...base, NODE_ENV: 'production' });
    expect(run.code).not.toBe(0);
    expect(lines(run.stderr)).toEqual(['auth failed to start: Invalid configuration: AUTH_ENCRYPTION_KEY is required in production']);
  });
});
