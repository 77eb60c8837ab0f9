/**
 * The servers of tools/bench/master.bench.ts, in a child process so that the load generator does
 * not share their event loop: `tsx tools/bench/lib/master-server.ts <masterPort> <barePort>`.
 * - the real master (startService, the real Postgres and Redis), with AGENTS agents seeded in a
 *   namespace of their own (removed when the parent says `exit`);
 * - a bare endpoint on the same shared stack (createServiceApp, token verification, the same
 *   manifest body parsed and checked as a JSON object) that answers without validating: the HTTP
 *   overhead the validate endpoint is measured beside.
 */
import { ApiRouter, createServiceApp } from '@platform/http';
import { SCHEMA_VERSION } from '@platform/manifest';
import { startService } from '@platform/service-kit';
import { createLogger } from '@platform/telemetry';
import { TestIssuer, testDatabaseUrl, testRedisUrl } from '@platform/testing';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { masterService } from '../../../apps/master/src/service';

const AGENTS = Number(process.env.BENCH_AGENTS ?? 10_000);
const CAPABILITIES = ['filesystem-read', 'network-outbound', 'database-read', 'tool-execution', 'browser', 'secrets-read', 'gpu', 'human-interaction'];
const STATUSES = ['active', 'active', 'active', 'deprecated'];
const KINDS = ['Agent', 'Agent', 'Task', 'Workflow'];

async function main(): Promise<void> {
  const [masterPort = '3970', barePort = '3971'] = process.argv.slice(2);
  const issuer = await new TestIssuer().start();
  const master = await startService(masterService, {
    env: {
      PORT: masterPort,
      LOG_LEVEL: 'warn',
      DATABASE_URL: testDatabaseUrl,
      REDIS_URL: testRedisUrl,
      MASTER_RATE_LIMIT: '100000000',
      MASTER_RATE_BURST: '100000000',
      DATABASE_POOL_SIZE: '10',
    },
    verifier: issuer.verifier(),
  });
  const namespace = `bench-${randomUUID().slice(0, 8)}`;
  const db = master.infra.db;
  for (let offset = 0; offset < AGENTS; offset += 1000) {
    await db.agent.createMany({
      data: Array.from({ length: Math.min(1000, AGENTS - offset) }, (_, j) => {
        const i = offset + j;
        const name = `agent-${String(i).padStart(5, '0')}`;
        const capabilities = [CAPABILITIES[i % CAPABILITIES.length], CAPABILITIES[(i * 7 + 3) % CAPABILITIES.length]];
        const manifest = {
          apiVersion: 'std/v0.4.7',
          kind: KINDS[i % KINDS.length],
          metadata: {
            name,
            namespace,
            version: '1.0.0',
            description: `Benchmark agent ${i} that reviews code and reports findings.`,
            status: STATUSES[i % STATUSES.length],
          },
          spec: { role: 'You review code.' },
          security: { tier: 'tier_2_write_limited', capabilities: { required: capabilities, optional: [] } },
        };
        return {
          namespace,
          name,
          version: '1.0.0',
          kind: manifest.kind,
          tier: 'tier_2_write_limited',
          status: manifest.metadata.status,
          visibility: 'private',
          description: manifest.metadata.description,
          capabilities: [...new Set(capabilities)],
          requiredCapabilities: [...new Set(capabilities)],
          manifest,
          createdBy: 'bench',
        };
      }),
    });
  }
  await db.$executeRawUnsafe('ANALYZE "master"."Agent"');

  const bare = new ApiRouter(issuer.verifier()).route({
    method: 'post',
    path: '/bare',
    summary: 'The same body and stack as /specification/validate, without the validation',
    access: 'authenticated',
    body: z.record(z.string(), z.unknown()),
    responses: { 200: { description: 'Fixed answer' } },
    handler: () => ({ valid: true, errors: [], warnings: [], schemaVersion: SCHEMA_VERSION }),
  });
  const app = createServiceApp({
    name: 'bench',
    logger: createLogger('bench', '0', 'warn'),
    openapi: { title: 'Bench', version: '0' },
    health: { checks: {} },
    routers: [{ basePath: '/api/v1', router: bare }],
  });
  const server = app.listen(Number(barePort), '127.0.0.1', () => process.send?.({ authorization: issuer.bearer(['*']), namespace }));

  process.on('message', async (message) => {
    if (message !== 'exit') return;
    await db.agent.deleteMany({ where: { namespace } });
    server.close();
    await master.stop();
    await issuer.stop();
    process.exit(0);
  });
}

void main();
