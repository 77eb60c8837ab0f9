/**
 * `npm run sdk:generate`: regenerates the SDK (libs/sdk) from the services' own OpenAPI documents.
 *
 * Boots the whole platform as `npm run up -- --ports=free --skip-setup` does (each service builds its
 * document from routes that need their real dependencies), in a database of its own (`<db>_sdk`,
 * migrated by each service on start) and a private Redis server, then for every service writes
 *   libs/sdk/openapi/<service>.json      the document it serves at /openapi.json
 *   libs/sdk/src/generated/<service>.ts  openapi-typescript's types of it
 * The platform's e2e test compares each served document with the committed one.
 */
import { startPrivateRedis } from '@platform/testing';
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';

const ROOT = path.resolve(__dirname, '../..');
const SDK = path.join(ROOT, 'libs/sdk');

interface ReadyMessage {
  type: 'ready';
  urls: Record<string, string>;
  services: Array<{ name: string; ok: boolean; reason?: string; tail?: string[] }>;
}

function databaseUrl(): string {
  const url = new URL(process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/platform');
  url.pathname = `${url.pathname.replace(/\/$/, '') || '/platform'}_sdk`;
  return url.toString();
}

/** The OpenAPI document as committed: stable key order is the service's own, two-space JSON. */
export const documentText = (document: unknown) => `${JSON.stringify(document, null, 2)}\n`;

/** Each service's Prisma client, as `npm run up` generates them before it boots. */
function generatePrismaClients(): void {
  for (const app of readdirSync(path.join(ROOT, 'prisma'))) {
    if (!existsSync(path.join(ROOT, 'prisma', app, 'prisma.config.ts'))) continue;
    const result = spawnSync(process.execPath, ['node_modules/prisma/build/index.js', 'generate', '--config', `prisma/${app}/prisma.config.ts`], {
      cwd: ROOT,
      env: { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: '1', CHECKPOINT_DISABLE: '1' },
      encoding: 'utf8',
    });
    if (result.status !== 0) throw new Error(`${app}: prisma generate failed:\n${result.stdout}${result.stderr}`);
  }
}

type Json = Record<string, unknown>;

/**
 * A copy of the document that OpenAPI tools accept: nested JSON Schema `$defs` (zod's named
 * schemas, referenced as `#/$defs/<name>` from inside the schema that embeds them) become
 * `components.schemas`, so that every `$ref` resolves against the document's root, and an
 * operationId served twice (one route under two base paths) gets a numbered suffix.
 */
export function forTooling(document: Json): Json {
  const copy = structuredClone(document);
  const operationIds = new Map<string, number>();
  for (const operations of Object.values((copy.paths ?? {}) as Record<string, Record<string, Json>>)) {
    for (const operation of Object.values(operations)) {
      if (typeof operation?.operationId !== 'string') continue;
      const seen = operationIds.get(operation.operationId) ?? 0;
      operationIds.set(operation.operationId, seen + 1);
      if (seen) operation.operationId = `${operation.operationId}${seen + 1}`;
    }
  }
  const components = (copy.components ??= {}) as Json;
  const schemas = (components.schemas ??= {}) as Json;
  // Changes the copy in place.
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    const object = node as Json;
    if (object.$defs && typeof object.$defs === 'object') {
      for (const [name, schema] of Object.entries(object.$defs as Json)) {
        // A named schema's own wrapper (`{$ref: '#/$defs/<name>', $defs}`) gives way to its definition.
        if (!(name in schemas) || schemas[name] === object) {
          schemas[name] = schema;
          visit(schema);
        }
      }
      delete object.$defs;
    }
    for (const [key, value] of Object.entries(object)) {
      if (key === '$ref' && typeof value === 'string') object.$ref = value.replace(/^#\/\$defs\//, '#/components/schemas/');
      else visit(value);
    }
  };
  visit(copy);
  return copy;
}

async function bootPlatform(redisUrl: string) {
  const env: Record<string, string> = { ...(process.env as Record<string, string>) };
  for (const name of Object.keys(env)) if (/_API_KEY$|_DATABASE_URL$|^GATEWAY_REPLY_SECRET$|^TRACING_INGEST_KEYS$/.test(name)) delete env[name];
  Object.assign(env, {
    NODE_ENV: 'test',
    NO_COLOR: '1',
    LOG_LEVEL: 'warn',
    DATABASE_URL: databaseUrl(),
    REDIS_URL: redisUrl,
    MIGRATE_ON_START: 'true',
    PLATFORM_READY_TIMEOUT_MS: '300000',
    AUTH_ADMIN_USERNAME: `sdk-admin-${randomBytes(4).toString('hex')}`,
    AUTH_ADMIN_PASSWORD: randomBytes(16).toString('hex'),
    TRACING_INGEST_KEY: randomBytes(24).toString('hex'),
    OTEL_SDK_DISABLED: 'true',
  });
  const child = spawn(process.execPath, [path.join(ROOT, 'tools/scripts/up.mjs'), '--ports=free', '--skip-setup'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  const logs: string[] = [];
  for (const stream of [child.stdout!, child.stderr!]) readline.createInterface({ input: stream }).on('line', (line) => logs.push(line) > 200 && logs.shift());
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    await exited;
  };
  try {
    const ready = await new Promise<ReadyMessage>((resolve, reject) => {
      child.on('message', (message: ReadyMessage) => message?.type === 'ready' && resolve(message));
      child.once('exit', (code) => reject(new Error(`the platform exited (${code}) before it was up`)));
    });
    const failed = ready.services.filter((service) => !service.ok);
    if (failed.length) throw new Error(failed.map((service) => `${service.name}: ${service.reason}\n${(service.tail ?? []).join('\n')}`).join('\n'));
    return { urls: ready.urls, stop };
  } catch (error) {
    await stop();
    throw new Error(`${(error as Error).message}\n${logs.slice(-40).join('\n')}`);
  }
}

/** libs/sdk/src/generated/<service>.ts from the committed libs/sdk/openapi/<service>.json. */
async function writeTypes(service: string): Promise<void> {
  const { default: openapiTS, astToString } = await import('openapi-typescript');
  const document = JSON.parse(readFileSync(path.join(SDK, 'openapi', `${service}.json`), 'utf8')) as Json;
  const types = astToString(await openapiTS(JSON.stringify(forTooling(document))));
  writeFileSync(
    path.join(SDK, 'src/generated', `${service}.ts`),
    `// Generated by \`npm run sdk:generate\` from ${service}'s /openapi.json: do not edit.\n${types}`,
  );
  console.log(`  ${service}: ${Object.keys((document.paths as object) ?? {}).length} paths`);
}

async function main(): Promise<void> {
  mkdirSync(path.join(SDK, 'openapi'), { recursive: true });
  mkdirSync(path.join(SDK, 'src/generated'), { recursive: true });
  if (process.argv.includes('--from-documents')) {
    // Types only, from the documents already in libs/sdk/openapi (no platform boot).
    for (const file of readdirSync(path.join(SDK, 'openapi')).sort()) if (file.endsWith('.json')) await writeTypes(file.slice(0, -'.json'.length));
    return;
  }
  generatePrismaClients();
  const redis = await startPrivateRedis();
  try {
    console.log('booting the platform (a private Redis, database *_sdk)…');
    const platform = await bootPlatform(redis.url);
    try {
      for (const [service, url] of Object.entries(platform.urls).sort()) {
        const response = await fetch(`${url}/openapi.json`);
        if (!response.ok) throw new Error(`${service}: GET /openapi.json answered ${response.status}`);
        writeFileSync(path.join(SDK, 'openapi', `${service}.json`), documentText(await response.json()));
        await writeTypes(service);
      }
    } finally {
      await platform.stop();
    }
  } finally {
    await redis.stop();
  }
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
