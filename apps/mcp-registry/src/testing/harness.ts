import { createLogger } from '@platform/telemetry';
import { TestIssuer, uniqueName } from '@platform/testing';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Queue } from 'bullmq';
import { createApp } from '../app';
import { loadMcpRegistryConfig } from '../config';
import { createRegistryContext, type RegistryContext } from '../context';

export const HANGING_SERVER = path.join(__dirname, 'hanging-server.mjs');

export interface Harness {
  issuer: TestIssuer;
  context: RegistryContext;
  server: Server;
  url: string;
  wsUrl: string;
  admin: string;
  writer: string;
  reader: string;
  /** The environment the registry was configured from (to start a second replica like it). */
  env: NodeJS.ProcessEnv;
  stop(): Promise<void>;
}

/**
 * A registry on port 0 against the real Postgres and Redis, with its own queue (so test files
 * never consume each other's jobs) and its own stdio work root.
 */
export async function startHarness(env: Record<string, string> = {}): Promise<Harness> {
  const issuer = await new TestIssuer().start();
  const queue = uniqueName('mcp-registry-test');
  // Every token of this harness has one subject, so its connections can be removed at the end.
  const sub = uniqueName('mcp-registry-tester');
  const fullEnv: NodeJS.ProcessEnv = {
    ...process.env,
    MCP_STDIO_ALLOWED_COMMANDS: `mcp-server-everything,node,mcp-does-not-exist-${process.pid}`,
    MCP_HEALTH_QUEUE: queue,
    MCP_STDIO_WORK_ROOT: path.join(os.tmpdir(), 'mcp-registry-test'),
    MCP_RATE_LIMIT: '100000',
    MCP_RATE_LIMIT_BURST: '100000',
    ...env,
  };
  const config = loadMcpRegistryConfig(fullEnv);
  const context = createRegistryContext(config, createLogger('mcp-registry', 'test', 'silent'), { reconcileSchedules: false });
  await context.start();
  const { app, stream } = createApp(context, issuer.verifier());
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  stream.attach(server);
  const { port } = server.address() as AddressInfo;
  return {
    issuer,
    context,
    env: fullEnv,
    server,
    url: `http://127.0.0.1:${port}`,
    wsUrl: `ws://127.0.0.1:${port}`,
    admin: issuer.bearer(['mcp:read', 'mcp:write', 'mcp:admin'], { sub }),
    writer: issuer.bearer(['mcp:read', 'mcp:write'], { sub }),
    reader: issuer.bearer(['mcp:read'], { sub }),
    async stop() {
      await context.prisma.connection.deleteMany({ where: { createdBy: sub } });
      await stream.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await context.stop();
      for (const name of [queue, `${queue}.on-demand`]) {
        const leftover = new Queue(name, { connection: { host: new URL(config.REDIS_URL).hostname, port: Number(new URL(config.REDIS_URL).port || 6379) } });
        await leftover.obliterate({ force: true }).catch(() => undefined);
        await leftover.close();
      }
      await issuer.stop();
    },
  };
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
