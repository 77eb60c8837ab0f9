import { startService } from '@platform/service-kit';
import { freePort, testDatabaseUrl, testRedisUrl, uniqueName } from '@platform/testing';
import { gatewayService } from '../src/service';
import { Fakes } from './fakes';

export type Gateway = Awaited<ReturnType<typeof startGateway>>;

/**
 * Boots the real gateway (Postgres, Redis, queues) against fakes of every system it calls. It runs
 * in the `api` role unless a test asks for `SERVICE_ROLE: 'all'`: test files run side by side on one
 * Redis, and a gateway that processes the site and studio queues would take another file's jobs
 * to its own fakes.
 */
export async function startGateway(extraEnv: Record<string, string> = {}, started?: Fakes) {
  const fakes = started ?? (await new Fakes().start());
  const port = await freePort();
  const service = await startService(gatewayService, {
    env: {
      PORT: String(port),
      GATEWAY_PUBLIC_URL: `http://127.0.0.1:${port}`,
      LOG_LEVEL: 'silent',
      DATABASE_URL: testDatabaseUrl,
      REDIS_URL: testRedisUrl,
      SERVICE_ROLE: 'api',
      ...fakes.env(),
      ...extraEnv,
    },
    verifier: fakes.issuer.verifier(),
  });
  const stop = async () => {
    await service.stop();
    await fakes.stop();
  };
  return { service, app: service.app, fakes, issuer: fakes.issuer, stop };
}

/** A valid manifest with resource limits, unique per call. */
export function manifest(overrides: { name?: string; namespace?: string; version?: string } = {}) {
  return {
    apiVersion: 'std/v0.4.7',
    kind: 'Agent',
    metadata: {
      name: overrides.name ?? uniqueName('agent'),
      namespace: overrides.namespace ?? 'acme',
      version: overrides.version ?? '1.0.0',
      description: 'Summarises documents',
    },
    security: {
      tier: 'tier_2_write_limited',
      capabilities: { required: ['network-outbound'], optional: ['tool-execution'] },
      sandboxing: {
        required: true,
        type: 'container',
        resource_limits: { max_memory_mb: 512, max_cpu_cores: 0.5, max_execution_seconds: 120, max_disk_mb: 1024 },
      },
    },
  };
}
