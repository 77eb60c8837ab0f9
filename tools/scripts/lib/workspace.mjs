// What the boot, single-service and test commands share. Plain Node ESM with no dependency, so that
// it runs on a fresh clone before `node_modules` exists.
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export const DEFAULT_DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/platform';
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';
export const START_POSTGRES = 'pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start';
export const START_REDIS = 'redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no';

const color = process.stdout.isTTY && !process.env.NO_COLOR;
const paint = (code) => (text) => (color ? `\x1b[${code}m${text}\x1b[0m` : String(text));
export const bold = paint('1');
export const dim = paint('2');
export const red = paint('31');
export const green = paint('32');
export const yellow = paint('33');
export const cyan = paint('36');

/** One line on stderr, prefixed, then exit. For everything the user must act on. */
export function fail(message, code = 1) {
  console.error(`${red('✖')} ${message}`);
  process.exit(code);
}

export function info(message) {
  console.log(`${cyan('›')} ${message}`);
}

/** Runs a command to completion with inherited output; resolves with its exit code. */
export function run(command, args, options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: 'inherit', ...options });
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });
}

/** Runs a command and collects its output; resolves with {code, output}. */
export function capture(command, args, options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], ...options });
    const chunks = [];
    child.stdout.on('data', (chunk) => chunks.push(chunk));
    child.stderr.on('data', (chunk) => chunks.push(chunk));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code: code ?? 1, output: Buffer.concat(chunks).toString() }));
  });
}

export const bin = (name) => path.join(ROOT, 'node_modules', '.bin', name);

// ---------------------------------------------------------------------------------------------
// Dependencies

/**
 * Why `npm ci` is needed, or null when node_modules matches package-lock.json. The mtime test of
 * npm's hidden lockfile is only the trigger; the versions are then compared, so a lockfile that was
 * merely touched (or written a moment after node_modules by `npm install`) never wipes a working
 * node_modules that other processes are using.
 */
export function installReason() {
  const lockPath = path.join(ROOT, 'package-lock.json');
  const hiddenPath = path.join(ROOT, 'node_modules', '.package-lock.json');
  if (!existsSync(lockPath)) fail('package-lock.json is missing: run the commands from the root of a clone of the repository.');
  if (!existsSync(hiddenPath)) return 'node_modules is missing';
  if (statSync(hiddenPath).mtimeMs >= statSync(lockPath).mtimeMs) return null;
  try {
    const wanted = JSON.parse(readFileSync(lockPath, 'utf8')).packages ?? {};
    const installed = JSON.parse(readFileSync(hiddenPath, 'utf8')).packages ?? {};
    for (const [key, entry] of Object.entries(wanted)) {
      if (!key || entry.link) continue;
      const have = installed[key];
      if (!have) {
        if (entry.optional) continue; // another platform's binary, never installed here
        return `${key.replace(/^.*node_modules\//, '')} is not installed`;
      }
      if (have.version !== entry.version) return `${key.replace(/^.*node_modules\//, '')} ${have.version} is installed, the lockfile wants ${entry.version}`;
    }
    return null;
  } catch (error) {
    return `cannot compare node_modules with package-lock.json (${error.message})`;
  }
}

/**
 * Installs the locked dependencies when they are missing or stale (always with `force`).
 *
 * `npm ci` first. It refuses a lockfile that lacks the optional binaries of other platforms
 * (`Missing: @swc/core-darwin-arm64@ from lock file`), and a registry mirror that serves only this
 * platform's packages can never produce one that has them. Then `npm install` installs the very
 * versions of the lockfile instead (it leaves the lockfile as it is, which is checked).
 */
export async function ensureInstalled({ force = false } = {}) {
  const reason = force ? 'a clean install was asked for' : installReason();
  if (!reason) return;
  const env = { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };
  info(`Installing dependencies (${reason}): npm ci`);
  const ci = await runTee('npm', ['ci'], env);
  if (ci.code === 0) return;
  if (!/EUSAGE|in sync|from lock file/.test(ci.stderr)) fail(`npm ci failed (exit ${ci.code}); see its output above. The npm registry must be reachable.`);
  const lockPath = path.join(ROOT, 'package-lock.json');
  const before = readFileSync(lockPath);
  info('npm ci refused the lockfile (it lacks optional binaries of other platforms); installing its locked versions with npm install');
  const code = await run('npm', ['install'], { env });
  if (code !== 0) fail(`npm install failed (exit ${code}); see its output above. The npm registry must be reachable.`);
  if (!readFileSync(lockPath).equals(before))
    console.error(`${yellow('!')} npm install rewrote package-lock.json: review \`git diff package-lock.json\` before committing it.`);
}

/** Like run(), and also keeps stderr for the caller to read. */
function runTee(command, args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env, stdio: ['inherit', 'inherit', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      process.stderr.write(chunk);
    });
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code: code ?? 1, stderr }));
  });
}

// ---------------------------------------------------------------------------------------------
// Postgres and Redis

function endpoint(url, defaultPort) {
  const parsed = new URL(url);
  return { host: parsed.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1', port: Number(parsed.port || defaultPort) };
}

/**
 * Opens a TCP connection, writes `probe` and resolves with the first bytes answered, or rejects
 * with a short reason. Nothing of the protocol beyond one round trip is needed to know the server
 * is up, and no dependency is needed either.
 */
function roundTrip({ host, port }, probe, timeoutMs = 3000) {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port });
    const timer = setTimeout(() => finish(new Error('no answer within 3 s')), timeoutMs);
    const finish = (error, data) => {
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve(data);
    };
    socket.once('connect', () => socket.write(probe));
    socket.once('data', (data) => finish(null, data));
    socket.once('error', (error) => finish(new Error(error.code ?? error.message)));
    socket.once('end', () => finish(new Error('connection closed')));
  });
}

/** Postgres answers an SSLRequest with one byte, `S` or `N`. */
async function checkPostgres(url) {
  const target = endpoint(url, 5432);
  const sslRequest = Buffer.from([0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f]);
  try {
    const answer = await roundTrip(target, sslRequest);
    if (answer[0] !== 0x53 && answer[0] !== 0x4e) return `${target.host}:${target.port} answers, but not as PostgreSQL`;
    return null;
  } catch (error) {
    return `${target.host}:${target.port} (${error.message})`;
  }
}

/** Redis answers PING with +PONG (or -NOAUTH when a password is needed: reachable all the same). */
async function checkRedis(url) {
  const target = endpoint(url, 6379);
  try {
    const answer = (await roundTrip(target, 'PING\r\n')).toString();
    if (!/^[+-]/.test(answer)) return `${target.host}:${target.port} answers, but not as Redis`;
    return null;
  } catch (error) {
    return `${target.host}:${target.port} (${error.message})`;
  }
}

/**
 * Checks every Postgres URL and the Redis URL; when one cannot be reached, prints one line per
 * missing server with the command that starts it, and exits.
 */
export async function ensureServices({ databaseUrls, redisUrl }) {
  const unique = [...new Set(databaseUrls)];
  const [pgProblems, redisProblem] = await Promise.all([Promise.all(unique.map(checkPostgres)), checkRedis(redisUrl)]);
  const lines = [];
  const pgDown = pgProblems.filter(Boolean);
  if (pgDown.length) lines.push(`PostgreSQL is not reachable at ${pgDown.join(', ')}. Start it with: ${START_POSTGRES}  (or set DATABASE_URL)`);
  if (redisProblem) lines.push(`Redis is not reachable at ${redisProblem}. Start it with: ${START_REDIS}  (or set REDIS_URL)`);
  if (lines.length) {
    for (const line of lines) console.error(`${red('✖')} ${line}`);
    process.exit(1);
  }
}

// ---------------------------------------------------------------------------------------------
// Apps

/** `AUTH`, `MCP_REGISTRY`: the prefix of a service's own env variables. */
export const envPrefix = (name) => name.toUpperCase().replace(/-/g, '_');

export function databaseUrlFor(name, env = process.env) {
  return env[`${envPrefix(name)}_DATABASE_URL`] || env.DATABASE_URL || DEFAULT_DATABASE_URL;
}

/**
 * Every service in apps/*, from its project.json: name, port and base path from `metadata`. A web
 * app (tag `type:web`, no port: the console, which the gateway serves) is no service and is left out.
 */
export function discoverApps() {
  const appsDir = path.join(ROOT, 'apps');
  if (!existsSync(appsDir)) return [];
  return readdirSync(appsDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(path.join(appsDir, entry.name, 'project.json')))
    .map((entry) => ({ entry, project: JSON.parse(readFileSync(path.join(appsDir, entry.name, 'project.json'), 'utf8')) }))
    .filter(({ project }) => !project.tags?.includes('type:web') && Number(project.metadata?.port) > 0)
    .map(({ entry, project }) => {
      const name = project.name ?? entry.name;
      const main = path.join(appsDir, entry.name, 'src', 'main.ts');
      return {
        name,
        dir: path.join('apps', entry.name),
        main,
        hasMain: existsSync(main),
        port: Number(project.metadata?.port ?? 0),
        basePath: project.metadata?.basePath ?? '/',
        hasPrisma: existsSync(path.join(ROOT, 'prisma', name, 'schema.prisma')),
      };
    })
    .sort((a, b) => (a.name === 'auth' ? -1 : b.name === 'auth' ? 1 : a.name.localeCompare(b.name)));
}

/**
 * Whether the app's generated Prisma client is older than its schema or than the installed
 * dependencies (the generator's output path is read from the schema).
 */
export function prismaClientStale(app) {
  const schemaPath = path.join(ROOT, 'prisma', app.name, 'schema.prisma');
  const output = /generator\s+client\s*{[^}]*?output\s*=\s*"([^"]+)"/s.exec(readFileSync(schemaPath, 'utf8'))?.[1];
  if (!output) return true;
  const client = path.join(path.dirname(schemaPath), output, 'client.ts');
  if (!existsSync(client)) return true;
  const generatedAt = statSync(client).mtimeMs;
  const hidden = path.join(ROOT, 'node_modules', '.package-lock.json');
  return statSync(schemaPath).mtimeMs > generatedAt || (existsSync(hidden) && statSync(hidden).mtimeMs > generatedAt);
}

/** Generates the app's Prisma client (offline: the schema engine runs as WebAssembly). */
export async function prismaGenerate(app) {
  if (!prismaClientStale(app)) return;
  const { code, output } = await capture(
    process.execPath,
    [path.join(ROOT, 'node_modules/prisma/build/index.js'), 'generate', '--config', `prisma/${app.name}/prisma.config.ts`],
    {
      env: { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: '1', CHECKPOINT_DISABLE: '1' },
    },
  );
  if (code !== 0) fail(`${app.name}: prisma generate failed:\n${output.trim()}`);
}

/** Creates the database and schema when missing and applies the app's migrations. */
export async function migrate(app, env = process.env) {
  const { code, output } = await capture(bin('tsx'), ['tools/scripts/migrate.ts', app.name], { env });
  if (code !== 0) fail(`${app.name}: migrations failed: ${output.trim()}`);
}

/** Whether something already listens on the port (another copy of the service, say). */
export function portInUse(port, host = '127.0.0.1') {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Polls `/health/ready` until it answers 200; rejects on timeout or when `gone()` says the process ended. */
export async function waitReady(port, { timeoutMs = 90_000, gone = () => null } = {}) {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer yet';
  while (Date.now() < deadline) {
    const ended = gone();
    if (ended) throw new Error(ended);
    try {
      const response = await fetch(`http://127.0.0.1:${port}/health/ready`, { signal: AbortSignal.timeout(2000) });
      if (response.ok) return;
      last = `/health/ready answered ${response.status}: ${(await response.text()).slice(0, 300)}`;
    } catch (error) {
      last = error.cause?.code ?? error.message;
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  throw new Error(`not ready after ${Math.round(timeoutMs / 1000)} s (${last})`);
}

/**
 * The bootstrap admin's password: AUTH_ADMIN_PASSWORD when set, else one generated once and kept
 * in tmp/ (git-ignored), so that the account made by the first boot keeps working on the next.
 */
/** A secret for local boots, made once and kept in tmp/<name> (git-ignored, mode 600). */
export function localSecret(name, minLength = 12) {
  const file = path.join(ROOT, 'tmp', name);
  let secret = existsSync(file) ? readFileSync(file, 'utf8').trim() : '';
  if (secret.length < minLength) {
    secret = randomBytes(Math.max(18, minLength)).toString('base64url');
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, `${secret}\n`, { mode: 0o600 });
    chmodSync(file, 0o600);
  }
  return { secret, file: path.relative(ROOT, file) };
}

export function adminCredentials(env = process.env) {
  const username = env.AUTH_ADMIN_USERNAME || 'admin';
  if (env.AUTH_ADMIN_PASSWORD) return { username, password: env.AUTH_ADMIN_PASSWORD, generated: false };
  const { secret, file } = localSecret('local-admin-password');
  return { username, password: secret, generated: true, file };
}

/**
 * The key every service's span exporter sends to the tracing service (TRACING_INGEST_KEY), and
 * what the tracing service is told of it: only its SHA-256 digest (TRACING_INGEST_KEYS).
 */
export function tracingIngestKey(env = process.env) {
  const key = env.TRACING_INGEST_KEY || localSecret('local-tracing-ingest-key', 32).secret;
  return { key, digest: `sha256:${createHash('sha256').update(key).digest('hex')}` };
}

/** Tries the admin login once, so that the printed instructions are known to work. */
export async function checkLogin(port, { username, password }) {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'password', username, password, client_id: 'platform-up' }),
      signal: AbortSignal.timeout(10_000),
    });
    if (response.ok) return { ok: true };
    return { ok: false, status: response.status, body: (await response.text()).slice(0, 300) };
  } catch (error) {
    return { ok: false, status: 0, body: error.cause?.code ?? error.message };
  }
}

/** Environment shared by every nx invocation: no daemon, no cloud, plain output. */
export const nxEnv = () => ({ ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true', NX_TUI: 'false' });

/** The login instructions printed by `up` and `service auth`. */
export function loginHelp(authUrl, admin) {
  const body = JSON.stringify({ grant_type: 'password', username: admin.username, password: admin.password, client_id: 'cli' });
  const lines = [
    `  ${bold('Log in')} as the bootstrap admin ${bold(admin.username)} with password ${bold(admin.password)}`,
    admin.generated
      ? dim(`    (generated for local use and kept in ${admin.file}; set AUTH_ADMIN_USERNAME / AUTH_ADMIN_PASSWORD to choose your own)`)
      : dim('    (from AUTH_ADMIN_USERNAME / AUTH_ADMIN_PASSWORD)'),
    `    curl -s -X POST ${authUrl}/api/v1/auth/login -H 'content-type: application/json' \\`,
    `      -d '${body.replace(/'/g, "'\\''")}'`,
    dim('    then call any service with: -H "Authorization: Bearer <access_token>"'),
  ];
  return lines.join('\n');
}
