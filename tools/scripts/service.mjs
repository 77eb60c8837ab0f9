#!/usr/bin/env node
// `npm run service -- <name>`: starts one service alone, in the foreground, honouring PORT,
// DATABASE_URL (or <NAME>_DATABASE_URL) and REDIS_URL. Installs dependencies, generates the
// service's Prisma client and applies its migrations first, like `npm run up` does for all.
//   PORT=4001 DATABASE_URL=postgresql://postgres@127.0.0.1:5432/dev npm run service -- auth
import {
  DEFAULT_REDIS_URL,
  adminCredentials,
  bold,
  checkLogin,
  cyan,
  databaseUrlFor,
  discoverApps,
  ensureInstalled,
  ensureServices,
  fail,
  green,
  info,
  loginHelp,
  migrate,
  portInUse,
  prismaGenerate,
  red,
  waitReady,
  yellow,
} from './lib/workspace.mjs';
import { describeExit, startService, stopOnSignals } from './lib/processes.mjs';

const name = process.argv[2];
const apps = discoverApps();
if (!name || name.startsWith('-')) fail(`usage: npm run service -- <name>   (one of: ${apps.map((app) => app.name).join(', ') || 'no app yet'})`, 2);
const app = apps.find((candidate) => candidate.name === name);
if (!app) fail(`No service named "${name}" in apps/ (there are: ${apps.map((candidate) => candidate.name).join(', ') || 'none'}).`, 2);
if (!app.hasMain) fail(`${app.dir}/src/main.ts does not exist yet.`);

await ensureInstalled();
const redisUrl = process.env.REDIS_URL || DEFAULT_REDIS_URL;
await ensureServices({ databaseUrls: [databaseUrlFor(app.name)], redisUrl });

if (app.hasPrisma) {
  info(`${app.name}: generating the Prisma client and applying migrations to ${redact(databaseUrlFor(app.name))}`);
  await prismaGenerate(app);
  await migrate(app);
}

const port = Number(process.env.PORT || app.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`PORT=${process.env.PORT} is not a port number.`);
if (port && (await portInUse(port))) fail(`Port ${port} is already in use: stop what runs there, or start with PORT=<another port>.`);

const env = { ...process.env, PORT: String(port), REDIS_URL: redisUrl, MIGRATE_ON_START: process.env.MIGRATE_ON_START ?? 'false' };
let admin = null;
if (app.name === 'auth') {
  admin = adminCredentials();
  env.AUTH_ADMIN_USERNAME = admin.username;
  env.AUTH_ADMIN_PASSWORD = admin.password;
  env.AUTH_PUBLIC_URL ??= `http://127.0.0.1:${port}`;
}

info(`Starting ${bold(app.name)} on port ${port} …`);
const service = startService(app, env, { prefix: false });
stopOnSignals([service], () => process.exit(0));

try {
  await waitReady(port, { gone: () => (service.exit ? describeExit(service.exit) : null) });
  const url = `http://127.0.0.1:${port}`;
  const lines = [
    '',
    `${green('●')} ${bold(app.name)} ready at ${cyan(`${url}${app.basePath === '/' ? '' : app.basePath}`)}   docs ${cyan(`${url}/docs`)}   OpenAPI ${cyan(`${url}/openapi.json`)}`,
  ];
  if (admin) {
    const login = await checkLogin(port, admin);
    lines.push(loginHelp(url, admin));
    if (!login.ok) lines.push(`  ${yellow('!')} A test login as ${admin.username} answered ${login.status}: ${login.body}`);
  }
  lines.push('', 'Ctrl-C stops it.');
  console.log(lines.join('\n'));
} catch (error) {
  console.error(`${red('✖')} ${app.name} did not become ready: ${error.message}`);
  if (service.exit) process.exit(1);
}

const exit = await service.exited;
if (exit.code !== 0 && exit.signal !== 'SIGTERM') fail(`${app.name} ${describeExit(exit)}`);
process.exit(0);

function redact(url) {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url;
  }
}
