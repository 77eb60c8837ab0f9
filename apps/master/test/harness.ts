import { startService } from '@platform/service-kit';
import { TestIssuer, testDatabaseUrl, testRedisUrl, uniqueName } from '@platform/testing';
import request from 'supertest';
import { masterService } from '../src/service';

type Json = Record<string, unknown>;

/** The task endpoint the test manifests declare (`spec.endpoint`). */
export const AGENT_ENDPOINT = 'http://agents.test/tasks';

/** The user a test acts as unless it names another. */
export const TEST_USER = 'master-tester';

/** A port nothing listens on: a dependency that is down. */
export const DOWN_URL = 'http://127.0.0.1:9';

/** Boots the real master in-process against the real Postgres and Redis, signed by a TestIssuer. */
export async function startMaster(env: Record<string, string> = {}, issuer?: TestIssuer) {
  const ownIssuer = !issuer;
  const tokens = issuer ?? (await new TestIssuer().start());
  const starting = startService(masterService, {
    env: {
      PORT: '0',
      LOG_LEVEL: 'silent',
      DATABASE_URL: testDatabaseUrl,
      REDIS_URL: testRedisUrl,
      REGISTRY_URL: DOWN_URL,
      WORKERS_URL: DOWN_URL,
      MASTER_RATE_LIMIT: '100000',
      MASTER_RATE_BURST: '100000',
      OUTBOUND_ALLOW_PRIVATE: 'true',
      MASTER_UPSTREAM_TIMEOUT_MS: '3000',
      ...env,
    },
    verifier: tokens.verifier(),
  });
  // A master that fails to start must not leave its issuer's server open.
  const master = await starting.catch(async (error: unknown) => {
    if (ownIssuer) await tokens.stop();
    throw error;
  });
  return {
    issuer: tokens,
    master,
    app: master.app,
    url: master.url,
    /**
     * A bearer token; without `sub` every call is the same user, so that a test's agents and
     * workflows belong to the caller that uses them (ownership, DESIGN.md "Who owns what").
     */
    auth: (permissions: string[] = ['*'], sub = TEST_USER) => tokens.bearer(permissions, { sub }),
    stop: async () => {
      await master.stop();
      if (ownIssuer) await tokens.stop();
    },
  };
}
export type Master = Awaited<ReturnType<typeof startMaster>>;

export interface ManifestOptions {
  namespace?: string;
  name?: string;
  version?: string;
  kind?: 'Agent' | 'Task' | 'Workflow' | 'Flow';
  description?: string;
  status?: string;
  visibility?: 'public' | 'private' | 'internal';
  security?: Json;
  governance?: Json;
}

/** A valid manifest (spec 1) with a unique name. */
export function manifest(options: ManifestOptions = {}): Json {
  return {
    apiVersion: 'std/v0.4.7',
    kind: options.kind ?? 'Agent',
    metadata: {
      name: options.name ?? uniqueName('agent'),
      ...(options.namespace !== undefined ? { namespace: options.namespace } : {}),
      version: options.version ?? '1.0.0',
      ...(options.description && { description: options.description }),
      ...(options.status && { status: options.status }),
      ...(options.visibility && { catalog: { visibility: options.visibility } }),
    },
    spec: { role: 'test agent', endpoint: AGENT_ENDPOINT },
    security: options.security ?? { tier: 'tier_1_read', capabilities: { required: ['network-outbound'], optional: [] } },
    ...(options.governance && { governance: options.governance }),
  };
}

/** A complete tier-2 posture that every built-in policy accepts. */
export const goodSecurity = (capabilities: string[] = ['network-outbound'], optional: string[] = []): Json => ({
  tier: 'tier_2_write_limited',
  capabilities: { required: capabilities, optional },
  sandboxing: { required: true, type: 'container', resource_limits: { max_memory_mb: 512, max_cpu_cores: 1, max_execution_seconds: 60 } },
});

export async function createAgent(h: Master, body: Json = manifest()): Promise<Json> {
  const res = await request(h.app)
    .post('/api/v1/agents')
    .set('Authorization', h.auth(['agents:write']))
    .send(body);
  if (res.status !== 201) throw new Error(`agent not created: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}
