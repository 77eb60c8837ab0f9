#!/usr/bin/env node
// `npm test`: the whole test suite on a fresh clone. Installs the locked dependencies when missing
// or stale, checks that Postgres and Redis answer (the tests run against the real ones), then runs
// every project's jest tests through Nx (each test target first generates its Prisma client and
// applies its migrations). Extra arguments go to `nx run-many`, e.g. `npm test -- --projects=auth`.
import { DEFAULT_DATABASE_URL, DEFAULT_REDIS_URL, discoverApps, databaseUrlFor, ensureInstalled, ensureServices, nxEnv, run } from './lib/workspace.mjs';

await ensureInstalled();
await ensureServices({
  databaseUrls: [
    process.env.DATABASE_URL || DEFAULT_DATABASE_URL,
    ...discoverApps()
      .filter((app) => app.hasPrisma)
      .map((app) => databaseUrlFor(app.name)),
  ],
  redisUrl: process.env.REDIS_URL || DEFAULT_REDIS_URL,
});

const args = ['nx', 'run-many', '-t', 'test', '--outputStyle=static', ...process.argv.slice(2)];
const code = await run('npx', args, { env: nxEnv() });
process.exit(code);
