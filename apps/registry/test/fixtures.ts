import { generateKeyPairSync } from 'node:crypto';
import { signManifest } from '@platform/manifest';
import { startTestService } from '@platform/testing';
import request from 'supertest';
import { registryService } from '../src/service';

type Json = Record<string, unknown>;

export interface ManifestOptions {
  namespace?: string;
  name: string;
  version: string;
  description?: string;
  kind?: 'Agent' | 'Task' | 'Workflow' | 'Flow';
  agentKind?: string;
  tags?: string[];
  labels?: Record<string, string>;
  security?: Json;
  governance?: Json;
  status?: string;
  extraMetadata?: Json;
}

/** A complete, certifiable tier-2 security posture. */
export const goodSecurity = (tier = 'tier_2_write_limited', capabilities: string[] = ['network-outbound']): Json => ({
  tier,
  capabilities: { required: capabilities, optional: [] },
  sandboxing: { required: true, type: 'container', resource_limits: { max_memory_mb: 512, max_cpu_cores: 1, max_execution_seconds: 60 } },
  ...(tier === 'tier_4_system_admin' && {
    threat_model: [{ category: 'privilege-escalation', severity: 'high', mitigations: ['least privilege'] }],
  }),
});

/** A valid manifest (spec 1) as an object. */
export function manifest(options: ManifestOptions): Json {
  return {
    apiVersion: 'std/v0.4.7',
    kind: options.kind ?? 'Agent',
    metadata: {
      name: options.name,
      ...(options.namespace !== undefined && { namespace: options.namespace }),
      version: options.version,
      ...(options.description !== undefined && { description: options.description }),
      ...(options.agentKind && { agentKind: options.agentKind }),
      ...(options.labels && { labels: options.labels }),
      ...(options.tags && { catalog: { tags: options.tags } }),
      ...(options.status && { status: options.status }),
      ...options.extraMetadata,
    },
    spec: { role: 'test agent' },
    ...(options.security && { security: options.security }),
    ...(options.governance && { governance: options.governance }),
  };
}

/** A YAML manifest with comments and spacing that a re-serialisation would lose. */
export function yamlManifest(namespace: string, name: string, version: string): string {
  return [
    '# An agent published as YAML; the registry must serve these bytes back unchanged.',
    'apiVersion: std/v0.4.7',
    'kind: Agent',
    'metadata:',
    `  name: ${name}       # aligned comment`,
    `  namespace: ${namespace}`,
    `  version: "${version}"`,
    '  description: >-',
    '    Reviews pull requests',
    '    and suggests fixes.',
    'spec:',
    '  role: reviewer',
    '',
  ].join('\n');
}

const ed25519 = generateKeyPairSync('ed25519');

/** The manifest signed with a key generated for this test run (Ed25519). */
export function signed(document: Json): Json {
  return signManifest(document, ed25519.privateKey, 'Ed25519') as unknown as Json;
}

/**
 * The registry booted through the shared harness (`startTestService`): `api` role unless the
 * test needs the certification worker; a test can close the queue producer to see Redis drop.
 */
export async function startRegistry(options: { worker?: boolean; rateLimit?: number; queueClosed?: boolean; env?: Record<string, string> } = {}) {
  const limit = String(options.rateLimit ?? 100_000);
  const service = await startTestService(registryService, {
    env: {
      SERVICE_ROLE: options.worker ? 'all' : 'api',
      REGISTRY_RATE_LIMIT: limit,
      REGISTRY_RATE_BURST: limit,
      REGISTRY_MANIFEST_MAX_BYTES: String(64 * 1024),
      REGISTRY_PUBLIC_URL: 'http://registry.test',
      ...options.env,
    },
  });
  // A queue whose connection is gone: what the API sees when Redis drops.
  if (options.queueClosed) await service.parts.certificationJobs.close();
  const user = service.user;
  return Object.assign(service, {
    user: (permissions = ['registry:read', 'registry:write']) => user(permissions),
    publish: (auth: string, document: unknown, path = '/api/v1/agents') => {
      const test = request(service.app).post(path).set('Authorization', auth);
      return typeof document === 'string' ? test.set('Content-Type', 'application/yaml').send(document) : test.send(document as object);
    },
  });
}

export type Harness = Awaited<ReturnType<typeof startRegistry>>;
