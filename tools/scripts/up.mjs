#!/usr/bin/env node
// `npm run up`: boots every service of the platform against the local Postgres and Redis.
//   1. installs the locked dependencies when missing or stale;
//   2. checks Postgres and Redis (one line with how to start them when they are down);
//   3. generates each service's Prisma client and applies its migrations (creating the database);
//   4. starts auth, issues through its admin API the API keys services call each other with
//      (lib/platform.mjs), then every other app of apps/* on the port of its project.json, with
//      every <SERVICE>_URL and key it reads; logs prefixed with each app's name;
//   5. builds the web console (apps/console) when its sources are newer than dist/apps/console;
//   6. waits for each /health/ready, then prints the console's URL (the gateway serves it), every
//      service's URL and docs, and how to log in as the admin.
// Ctrl-C stops every service through its graceful shutdown (and revokes the keys it issued).
// Options: --ports=free   free ports instead of those of project.json (a second platform beside one);
//          --skip-setup   no install, Prisma generation or migrations (the caller did them: the tests).
import {
  DEFAULT_DATABASE_URL,
  DEFAULT_REDIS_URL,
  adminCredentials,
  ROOT,
  bold,
  checkLogin,
  cyan,
  databaseUrlFor,
  discoverApps,
  dim,
  ensureInstalled,
  ensureServices,
  fail,
  green,
  info,
  loginHelp,
  migrate,
  nxEnv,
  portInUse,
  prismaGenerate,
  red,
  run,
  tracingIngestKey,
  yellow,
} from './lib/workspace.mjs';
import { createPlatform } from './lib/platform.mjs';
import { describeExit, stopOnSignals } from './lib/processes.mjs';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const args = process.argv.slice(2);
for (const arg of args) if (!['--ports=free', '--ports=fixed', '--skip-setup'].includes(arg)) fail(`Unknown option ${arg} (known: --ports=free, --skip-setup)`);
const freePorts = args.includes('--ports=free');
const skipSetup = args.includes('--skip-setup');

const started = Date.now();
if (!skipSetup) await ensureInstalled();

const all = discoverApps();
const skipped = all.filter((app) => !app.hasMain);
const apps = all.filter((app) => app.hasMain);
for (const app of skipped) console.log(`${yellow('!')} ${app.name}: ${app.dir}/src/main.ts does not exist yet; skipped`);
if (!apps.length) fail('No service to start: no apps/<name>/src/main.ts in this checkout.');

const redisUrl = process.env.REDIS_URL || DEFAULT_REDIS_URL;
await ensureServices({
  databaseUrls: [process.env.DATABASE_URL || DEFAULT_DATABASE_URL, ...apps.filter((a) => a.hasPrisma).map((a) => databaseUrlFor(a.name))],
  redisUrl,
});

const withPrisma = apps.filter((app) => app.hasPrisma);
if (withPrisma.length && !skipSetup) {
  info(`Generating Prisma clients and applying migrations: ${withPrisma.map((app) => app.name).join(', ')}`);
  await Promise.all(withPrisma.map((app) => prismaGenerate(app)));
  // One service per database first (it creates the database when missing: two creating it at once
  // collide), then the others in parallel: each has its own schema, and Prisma's lock orders them.
  const byDatabase = new Map();
  for (const app of withPrisma) byDatabase.set(databaseUrlFor(app.name), [...(byDatabase.get(databaseUrlFor(app.name)) ?? []), app]);
  await Promise.all(
    [...byDatabase.values()].map(async ([first, ...rest]) => {
      await migrate(first);
      await Promise.all(rest.map((app) => migrate(app)));
    }),
  );
}

if (!skipSetup) await buildConsole();

const busy = [];
if (!freePorts) for (const app of apps) if (app.port && (await portInUse(app.port))) busy.push(app);
if (busy.length) {
  fail(
    `Port${busy.length > 1 ? 's' : ''} ${busy.map((app) => `${app.port} (${app.name})`).join(', ')} already in use: is the platform already running? Stop it, or free the port.`,
  );
}

const admin = adminCredentials();
const tracingKey = tracingIngestKey();
const authApp = apps.find((app) => app.name === 'auth');

info(
  `Starting ${authApp ? `${bold('auth')}, its service keys, then ` : ''}${apps
    .filter((app) => app !== authApp)
    .map((app) => bold(app.name))
    .join(', ')} …`,
);
const platform = createPlatform({
  apps,
  ports: freePorts ? 'free' : 'fixed',
  env: {
    ...process.env,
    REDIS_URL: redisUrl,
    // Migrations were just applied above; a service that migrates again only loses time.
    MIGRATE_ON_START: process.env.MIGRATE_ON_START ?? 'false',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
  },
  admin,
  tracingKey,
  readyTimeoutMs: Number(process.env.PLATFORM_READY_TIMEOUT_MS || 90_000),
  log: (message) => info(message),
});
const { services, results } = platform;
stopOnSignals(
  services,
  () => process.exit(0),
  () => platform.stop(),
);
// Started by another program with an IPC channel (the platform test): everything stops when it
// goes away, and it is told where everything is once the platform is up.
process.on('disconnect', () => process.kill(process.pid, 'SIGTERM'));
await platform.boot();
if (process.send) {
  process.send({
    type: 'ready',
    urls: platform.urls,
    grpcPort: platform.grpcPort,
    admin: { username: admin.username, password: admin.password },
    services: results.map(({ service, ok, reason }) => ({
      name: service.app.name,
      url: service.url,
      ok,
      reason,
      tail: ok ? undefined : service.tail.slice(-30),
    })),
    keyError: platform.keyError,
  });
}
const authUrl = platform.urls.auth ?? process.env.AUTH_URL;

const ready = results.filter((result) => result.ok);
const failed = results.filter((result) => !result.ok);
let login = null;
if (authApp && ready.some((result) => result.service.app.name === 'auth')) login = await checkLogin(new URL(authUrl).port, admin);

const lines = [
  '',
  bold(`Agent platform: ${ready.length} of ${results.length} service${results.length > 1 ? 's' : ''} ready in ${((Date.now() - started) / 1000).toFixed(1)} s`),
  '',
];
const width = Math.max(...apps.map((app) => app.name.length));
const gatewayResult = results.find((result) => result.service.app.name === 'gateway' && result.ok);
if (gatewayResult) {
  const built = existsSync(path.join(ROOT, 'dist/apps/console/index.html'));
  lines.push(
    `  ${built ? green('●') : yellow('●')} ${bold('console'.padEnd(width))}  ${cyan(`${gatewayResult.service.url}/`)}${built ? '' : `   ${yellow('not built')}: npx nx run console:build`}`,
  );
}
for (const { service, ok, reason } of results) {
  const { name, basePath } = service.app;
  const url = service.url;
  if (ok) lines.push(`  ${green('●')} ${bold(name.padEnd(width))}  ${cyan(`${url}${basePath === '/' ? '' : basePath}`)}   docs ${cyan(`${url}/docs`)}`);
  else lines.push(`  ${red('●')} ${bold(name.padEnd(width))}  ${red('FAILED')}: ${reason}`);
}
for (const app of skipped) lines.push(`  ${dim('○')} ${bold(app.name.padEnd(width))}  ${dim('not written yet')}`);
lines.push('');
if (login) {
  lines.push(loginHelp(authUrl, admin));
  if (!login.ok) {
    lines.push(
      `  ${yellow('!')} A test login as ${admin.username} answered ${login.status}: ${login.body}`,
      login.status === 401
        ? dim(`    The account likely exists from an earlier boot with another password: start with AUTH_ADMIN_PASSWORD=<that password>.`)
        : '',
    );
  }
  lines.push('');
}
for (const { service } of failed) {
  lines.push(red(`${service.app.name} did not become ready; its last lines:`), ...service.tail.slice(-15).map((line) => `  ${dim('│')} ${line}`), '');
}
if (ready.length) lines.push(dim('Ctrl-C stops every service.'));
console.log(lines.join('\n'));

if (!ready.length) {
  console.error(`${red('✖')} No service started.`);
  process.exit(1);
}

// Report a service that stops later; leave when none is left.
await Promise.all(
  services.map(async (service) => {
    const exit = await service.exited;
    if (!process.exitCode && exit.code !== 0 && exit.signal !== 'SIGTERM') console.error(`${red('✖')} ${service.app.name} ${describeExit(exit)}`);
  }),
);
process.exit(services.every((service) => service.exit?.code === 0 || service.exit?.signal === 'SIGTERM') ? 0 : 1);

/** Newest modification time of the files under `dir` (0 when it does not exist). */
function newest(dir) {
  if (!existsSync(dir)) return 0;
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const full = path.join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(full) : statSync(full).mtimeMs);
  }
  return latest;
}

/**
 * Builds the console (served by the gateway from dist/apps/console) when a source of it, or of the
 * libraries it is built from, is newer than its index.html. A failed build leaves the platform
 * booting: the gateway says at / how to build it.
 */
async function buildConsole() {
  if (!existsSync(path.join(ROOT, 'apps/console/project.json'))) {
    info('No apps/console in this checkout: the console is not built');
    return;
  }
  const index = path.join(ROOT, 'dist/apps/console/index.html');
  const builtAt = existsSync(index) ? statSync(index).mtimeMs : 0;
  const sources = ['apps/console', 'libs/contracts/src', 'libs/sdk/src'].map((dir) => newest(path.join(ROOT, dir)));
  if (builtAt && Math.max(...sources) <= builtAt) return;
  info(`Building the console (${builtAt ? 'its sources changed' : 'not built yet'}): npx nx run console:build`);
  const code = await run('npx', ['nx', 'run', 'console:build', '--outputStyle=static'], { env: nxEnv() });
  if (code !== 0) console.error(`${yellow('!')} The console build failed (exit ${code}); the platform boots without it.`);
}
