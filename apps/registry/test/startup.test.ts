import { runServiceProcess, testDatabaseUrl, testRedisUrl } from '@platform/testing';

/** A configuration error ends start-up with one line naming the variable, and a non-zero exit. */
describe('registry start-up with a bad configuration', () => {
  it('names the variable in one line without a stack and exits non-zero', async () => {
    const run = await runServiceProcess('apps/registry/src/main.ts', {
      LOG_LEVEL: 'silent',
      MIGRATE_ON_START: 'false',
      DATABASE_URL: testDatabaseUrl,
      REDIS_URL: testRedisUrl,
      REGISTRY_RATE_LIMIT: 'lots',
    });
    expect(run.code).not.toBe(0);
    const lines = run.stderr.split('\n').filter((line) => line.trim() !== '');
    expect(lines).toEqual([expect.stringMatching(/^registry failed to start: Invalid configuration: REGISTRY_RATE_LIMIT: /)]);
  });
});
