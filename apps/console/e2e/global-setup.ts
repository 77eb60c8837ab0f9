import { bootPlatform, startFakeOllama, type BootedPlatform } from '@platform/testing';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { BUILT_CONSOLE, DATABASE_SUFFIX, OAUTH_PROVIDER, OUTPUT_DIR, ROOT } from './paths';

/**
 * Boots the whole platform once for the run, as the platform test does, each service its own
 * process, in a database of the run's own and a private Redis; the gateway serves a copy of the
 * built console (others may rebuild dist/apps/console meanwhile). The URLs and the admin reach the
 * tests through the environment; the returned function is the teardown.
 */
export default async function globalSetup(): Promise<() => Promise<void>> {
  if (!existsSync(path.join(BUILT_CONSOLE, 'index.html')))
    throw new Error('dist/apps/console is not built: run `npx nx run console:build` (the console:test target does it first)');
  const consoleDir = path.join(OUTPUT_DIR, 'console');
  rmSync(consoleDir, { recursive: true, force: true });
  mkdirSync(OUTPUT_DIR, { recursive: true });
  cpSync(BUILT_CONSOLE, consoleDir, { recursive: true });

  const ollama = await startFakeOllama();
  const admin = { username: 'console-admin', password: randomBytes(16).toString('hex') };
  let platform: BootedPlatform;
  try {
    platform = await bootPlatform({
      // The run's database, dropped first so that every run starts from a fresh install.
      databaseSuffix: DATABASE_SUFFIX.replace(/^_/, ''),
      fresh: true,
      env: {
        LOG_LEVEL: 'info',
        AUTH_ADMIN_USERNAME: admin.username,
        AUTH_ADMIN_PASSWORD: admin.password,
        OTEL_SDK_DISABLED: 'false',
        // local-models serves the fake Ollama's models; mcp-registry may start the MCP reference server.
        OLLAMA_URL: ollama.url,
        MCP_STDIO_ALLOWED_COMMANDS: 'mcp-server-everything',
        MCP_STDIO_PATH: path.join(ROOT, 'node_modules/.bin'),
        GATEWAY_CONSOLE_DIR: consoleDir,
        // Every test signs in through the page; auth's default (10 a quarter hour per account) is for people.
        AUTH_LOGIN_RATE_LIMIT: '10000',
        // The identity provider the sign-in spec configures at auth (a real OpenID provider it starts).
        GATEWAY_CONSOLE_OAUTH_PROVIDERS: OAUTH_PROVIDER,
      },
    });
  } catch (error) {
    await ollama.stop();
    throw error;
  }
  process.env.CONSOLE_E2E_URLS = JSON.stringify(platform.urls);
  process.env.CONSOLE_E2E_ADMIN = JSON.stringify(admin);

  return async () => {
    await platform.stop();
    await ollama.stop();
    // The services' logs of the run, for a failure's post-mortem.
    writeFileSync(path.join(OUTPUT_DIR, 'platform.log'), `${platform.logs.join('\n')}\n`);
    console.log(`The platform's log of this run: ${path.relative(ROOT, path.join(OUTPUT_DIR, 'platform.log'))}`);
  };
}
