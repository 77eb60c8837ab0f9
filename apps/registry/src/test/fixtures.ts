import { generateKeyPairSync } from 'node:crypto';
import { signManifest } from '@platform/manifest';

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
