import { bullmqConnection } from '@platform/data';
import { startTestService, uniqueName, type TestServiceOptions } from '@platform/testing';
import { Queue } from 'bullmq';
import os from 'node:os';
import path from 'node:path';
import { mcpRegistryService } from '../src/service';

export const HANGING_SERVER = path.join(__dirname, 'hanging-server.mjs');

/**
 * The MCP registry booted through the shared harness (`startTestService`) on port 0 against the
 * real Postgres and Redis, with its own queue (so test files never consume each other's jobs) and
 * its own stdio work root. Schedules are not reconciled on start (the database is shared).
 */
export async function startHarness(overrides: Record<string, string> = {}, options: Pick<TestServiceOptions, 'issuer' | 'verifier'> = {}) {
  const queue = uniqueName('mcp-registry-test');
  // Every token of this harness has one subject, so its connections can be removed at the end.
  const sub = uniqueName('mcp-registry-tester');
  const env: Record<string, string> = {
    MCP_STDIO_ALLOWED_COMMANDS: `mcp-server-everything,node,mcp-does-not-exist-${process.pid}`,
    MCP_HEALTH_QUEUE: queue,
    MCP_STDIO_WORK_ROOT: path.join(os.tmpdir(), 'mcp-registry-test'),
    MCP_RATE_LIMIT: '100000',
    MCP_RATE_LIMIT_BURST: '100000',
    MCP_RECONCILE_SCHEDULES: 'false',
    OUTBOUND_ALLOW_PRIVATE: 'true', // the fake CMS listens on loopback
    ...(process.env.PATH && { PATH: process.env.PATH }),
    ...overrides,
  };
  const service = await startTestService(mcpRegistryService, { env, ...options });
  const { issuer } = service;
  const stop = service.stop;
  return {
    issuer,
    context: service.parts.context,
    /** The service's database, for tests that check stored state. */
    db: service.infra.db,
    server: service.server,
    url: service.url,
    wsUrl: service.url.replace(/^http/, 'ws'),
    /** The subject of `admin`, `writer` and `reader`: the owner of what they register. */
    sub,
    admin: issuer.bearer(['mcp:read', 'mcp:write', 'mcp:admin'], { sub }),
    writer: issuer.bearer(['mcp:read', 'mcp:write'], { sub }),
    reader: issuer.bearer(['mcp:read'], { sub }),
    /** The environment the registry was configured from (to start a second replica like it). */
    env,
    async stop() {
      await service.infra.db.connection.deleteMany({ where: { createdBy: sub } });
      service.server.closeAllConnections();
      await stop();
      for (const name of [queue, `${queue}.on-demand`]) {
        const leftover = new Queue(name, { connection: bullmqConnection(service.infra.config.REDIS_URL, 'worker') });
        await leftover.obliterate({ force: true }).catch(() => undefined);
        await leftover.close();
      }
    },
  };
}

export type Harness = Awaited<ReturnType<typeof startHarness>>;

/** A second replica on the same queue and database, in the given role (its own issuer, no API used). */
export async function startReplica(env: Record<string, string>, role: 'worker' | 'api' | 'all') {
  const service = await startTestService(mcpRegistryService, { env: { ...env, SERVICE_ROLE: role } });
  return { url: service.url, supervisor: service.parts.context.supervisor, stop: () => service.stop() };
}

/** The reference server over stdio; the generous timeout keeps a cold start on a busy machine `healthy`. */
export function stdioEverything(name = uniqueName('everything'), extra: Record<string, unknown> = {}) {
  return {
    name,
    type: 'server',
    protocol: 'stdio',
    endpoint: { command: 'mcp-server-everything', args: ['stdio'] },
    capabilities: ['demo'],
    metadata: { owner: 'tests', environment: 'test' },
    healthCheck: { enabled: false, interval: 30, timeout: 30_000 },
    ...extra,
  };
}
