// Writes the manifest corpus: `npx tsx libs/manifest/corpus/generate.ts`.
// Each invalid file breaks one rule of spec 1 and names it; its header records the issues the
// validator must report (`# expect: <code> @ <path>`), and nothing else may be reported as an error.
// Valid files may record the warnings they must produce (`# expect-warning: <code> @ <path>`).
// Unverified files are valid by the schema but carry a checksum or signature that does not verify
// (`# expect-unverified: <code> @ <path>`): a warning by default, an error under strict.
// Signed files get fresh keys on every run, so run this only to add cases, then commit the output.
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { manifestChecksum } from '../src/checksum';
import { signManifest } from '../src/signature';

type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type Expect = [code: string, path: string];

const base = (): Doc => ({ apiVersion: 'std/v0.4.7', kind: 'Agent', metadata: { name: 'corpus-agent', version: '1.0.0' } });
const withMeta = (metadata: Doc): Doc => ({ ...base(), metadata: { ...base().metadata, ...metadata } });
const withIdentity = (identity: Doc): Doc => withMeta({ identity: { agent_id: 'corpus-agent', ...identity } });
const withPublisher = (publisher: Doc): Doc => withIdentity({ publisher: { name: 'Example Corp', ...publisher } });
const withSecurity = (security: Doc): Doc => ({ ...base(), security });
const withLimits = (limits: Doc): Doc => withSecurity({ sandboxing: { required: true, resource_limits: limits } });
const withThreat = (threat: Doc): Doc => withSecurity({ threat_model: [{ category: 'prompt-injection', ...threat }] });
const withRuntime = (runtime: Doc): Doc => ({ ...base(), extensions: { runtime_framework: runtime } });
const without = (doc: Doc, key: string): Doc => {
  const copy = { ...doc };
  delete copy[key];
  return copy;
};
const e = (code: string, path: string): Expect => [`manifest.${code}`, path];

// name of the rule broken -> [document, expected errors]
const invalid: Record<string, [Doc, Expect[]]> = {
  // root
  'apiVersion-required': [without(base(), 'apiVersion'), [e('apiVersion.required', '$.apiVersion')]],
  'apiVersion-type': [{ ...base(), apiVersion: 0.4 }, [e('apiVersion.type', '$.apiVersion')]],
  'apiVersion-pattern-upstream-prefix': [{ ...base(), apiVersion: 'ossa/v0.4.7' }, [e('apiVersion.pattern', '$.apiVersion')]],
  'apiVersion-pattern-0.3-patch-below-4': [{ ...base(), apiVersion: 'std/v0.3.1' }, [e('apiVersion.pattern', '$.apiVersion')]],
  'apiVersion-pattern-0.2.1': [{ ...base(), apiVersion: 'std/v0.2.1' }, [e('apiVersion.pattern', '$.apiVersion')]],
  'apiVersion-pattern-unknown-version': [{ ...base(), apiVersion: 'std/v0.6' }, [e('apiVersion.pattern', '$.apiVersion')]],
  'apiVersion-pattern-suffix-underscore': [{ ...base(), apiVersion: 'std/v0.4.7-rc_1' }, [e('apiVersion.pattern', '$.apiVersion')]],
  'kind-required': [without(base(), 'kind'), [e('kind.required', '$.kind')]],
  'kind-enum': [{ ...base(), kind: 'agent' }, [e('kind.enum', '$.kind')]],
  'metadata-required': [without(base(), 'metadata'), [e('metadata.required', '$.metadata')]],
  'metadata-type': [{ ...base(), metadata: 'corpus-agent' }, [e('metadata.type', '$.metadata')]],
  'spec-type': [{ ...base(), spec: ['step'] }, [e('spec.type', '$.spec')]],
  'security-type': [{ ...base(), security: 'tier_1_read' }, [e('security.type', '$.security')]],
  'protocols-type': [{ ...base(), protocols: 'mcp' }, [e('protocols.type', '$.protocols')]],
  'token_efficiency-type': [{ ...base(), token_efficiency: true }, [e('token_efficiency.type', '$.token_efficiency')]],
  'cognition-type': [{ ...base(), cognition: 'react' }, [e('cognition.type', '$.cognition')]],
  'governance-type': [{ ...base(), governance: ['policy'] }, [e('governance.type', '$.governance')]],
  'extensions-type': [{ ...base(), extensions: ['runtime_framework'] }, [e('extensions.type', '$.extensions')]],
  'runtime-type': [{ ...base(), kind: 'Task', runtime: 'node' }, [e('runtime.type', '$.runtime')]],
  'composition-type': [{ ...base(), kind: 'Workflow', composition: 'sequential' }, [e('composition.type', '$.composition')]],
  // metadata
  'metadata-name-required': [{ ...base(), metadata: { version: '1.0.0' } }, [e('metadata.name.required', '$.metadata.name')]],
  'metadata-name-pattern-uppercase': [withMeta({ name: 'Corpus-Agent' }), [e('metadata.name.pattern', '$.metadata.name')]],
  'metadata-name-pattern-trailing-hyphen': [withMeta({ name: 'corpus-agent-' }), [e('metadata.name.pattern', '$.metadata.name')]],
  'metadata-name-max_length': [withMeta({ name: 'a'.repeat(254) }), [e('metadata.name.max_length', '$.metadata.name')]],
  'metadata-namespace-pattern': [withMeta({ namespace: 'acme/agents' }), [e('metadata.namespace.pattern', '$.metadata.namespace')]],
  'metadata-namespace-max_length': [withMeta({ namespace: 'n'.repeat(64) }), [e('metadata.namespace.max_length', '$.metadata.namespace')]],
  'metadata-version-semver': [withMeta({ version: 'v1.2.3' }), [e('metadata.version.semver', '$.metadata.version')]],
  'metadata-version-type': [withMeta({ version: 1.2 }), [e('metadata.version.type', '$.metadata.version')]],
  'metadata-description-max_length': [withMeta({ description: 'd'.repeat(2001) }), [e('metadata.description.max_length', '$.metadata.description')]],
  'metadata-uuid-not-a-uuid': [withMeta({ uuid: 'corpus-agent-1' }), [e('metadata.uuid.uuid', '$.metadata.uuid')]],
  'metadata-uuid-not-v4': [withMeta({ uuid: 'c232ab00-9414-11ec-b3c8-9f6bdeced846' }), [e('metadata.uuid.uuid', '$.metadata.uuid')]],
  'metadata-machine_name-pattern': [withMeta({ machine_name: 'corpus-agent' }), [e('metadata.machine_name.pattern', '$.metadata.machine_name')]],
  'metadata-machine_name-max_length': [withMeta({ machine_name: 'm'.repeat(129) }), [e('metadata.machine_name.max_length', '$.metadata.machine_name')]],
  'metadata-signature-type': [withMeta({ signature: 42 }), [e('metadata.signature.type', '$.metadata.signature')]],
  'metadata-sbom_pointer-uri_or_path': [withMeta({ sbom_pointer: ' sbom.json' }), [e('metadata.sbom_pointer.uri_or_path', '$.metadata.sbom_pointer')]],
  'metadata-status-enum': [withMeta({ status: 'retired' }), [e('metadata.status.enum', '$.metadata.status')]],
  'metadata-revoked_at-date_time': [withMeta({ status: 'revoked', revoked_at: '2026-02-30' }), [e('metadata.revoked_at.date_time', '$.metadata.revoked_at')]],
  'metadata-deprecated_message-max_length': [withMeta({ status: 'deprecated', deprecated_message: 'm'.repeat(501) }), [e('metadata.deprecated_message.max_length', '$.metadata.deprecated_message')]],
  'metadata-labels-type': [withMeta({ labels: ['team'] }), [e('metadata.labels.type', '$.metadata.labels')]],
  'metadata-labels-value-type': [withMeta({ labels: { replicas: 3 } }), [e('metadata.labels.type', '$.metadata.labels.replicas')]],
  'metadata-labels-value-max_length': [withMeta({ labels: { team: 't'.repeat(64) } }), [e('metadata.labels.max_length', '$.metadata.labels.team')]],
  'metadata-annotations-value-type': [withMeta({ annotations: { reviewed: true } }), [e('metadata.annotations.type', '$.metadata.annotations.reviewed')]],
  'metadata-agentType-enum': [withMeta({ agentType: 'gpt' }), [e('metadata.agentType.enum', '$.metadata.agentType')]],
  'metadata-agentKind-enum': [withMeta({ agentKind: 'team-lead' }), [e('metadata.agentKind.enum', '$.metadata.agentKind')]],
  'metadata-description-type': [withMeta({ description: ['a', 'b'] }), [e('metadata.description.type', '$.metadata.description')]],
  'metadata-annotations-type': [withMeta({ annotations: 'owner=me' }), [e('metadata.annotations.type', '$.metadata.annotations')]],
  'metadata-catalog-type': [withMeta({ catalog: 'public' }), [e('metadata.catalog.type', '$.metadata.catalog')]],
  'metadata-mesh_bindings-type': [withMeta({ mesh_bindings: ['node'] }), [e('metadata.mesh_bindings.type', '$.metadata.mesh_bindings')]],
  'metadata-identity-publisher-type': [withIdentity({ publisher: 'Example Corp' }), [e('metadata.identity.publisher.type', '$.metadata.identity.publisher')]],
  'metadata-catalog-categories-item-type': [withMeta({ catalog: { categories: [{ name: 'security' }] } }), [e('metadata.catalog.categories.type', '$.metadata.catalog.categories[0]')]],
  // x-signature
  'metadata-x-signature-value-type': [withMeta({ 'x-signature': { type: 'Ed25519', value: 12345, publicKey: 'a2V5' } }), [e('metadata.x-signature.value.type', '$.metadata["x-signature"].value')]],
  'metadata-x-signature-publicKey-type': [withMeta({ 'x-signature': { type: 'Ed25519', value: 'c2ln', publicKey: { kty: 'OKP' } } }), [e('metadata.x-signature.publicKey.type', '$.metadata["x-signature"].publicKey')]],
  'metadata-x-signature-type': [withMeta({ 'x-signature': 'c2lnbmF0dXJl' }), [e('metadata.x-signature.type', '$.metadata["x-signature"]')]],
  'metadata-x-signature-type-required': [withMeta({ 'x-signature': { value: 'c2ln', publicKey: 'a2V5' } }), [e('metadata.x-signature.type.required', '$.metadata["x-signature"].type')]],
  'metadata-x-signature-type-enum': [withMeta({ 'x-signature': { type: 'ed25519', value: 'c2ln', publicKey: 'a2V5' } }), [e('metadata.x-signature.type.enum', '$.metadata["x-signature"].type')]],
  'metadata-x-signature-value-required': [withMeta({ 'x-signature': { type: 'jwt', publicKey: 'a2V5' } }), [e('metadata.x-signature.value.required', '$.metadata["x-signature"].value')]],
  'metadata-x-signature-publicKey-required': [withMeta({ 'x-signature': { type: 'jwt', value: 'c2ln' } }), [e('metadata.x-signature.publicKey.required', '$.metadata["x-signature"].publicKey')]],
  'metadata-x-signature-issuer-uri': [withMeta({ 'x-signature': { type: 'jwt', value: 'c2ln', publicKey: 'a2V5', issuer: 'Example Corp' } }), [e('metadata.x-signature.issuer.uri', '$.metadata["x-signature"].issuer')]],
  'metadata-x-signature-timestamp-date_time': [withMeta({ 'x-signature': { type: 'jwt', value: 'c2ln', publicKey: 'a2V5', timestamp: 'yesterday' } }), [e('metadata.x-signature.timestamp.date_time', '$.metadata["x-signature"].timestamp')]],
  // identity
  'metadata-identity-type': [withMeta({ identity: 'corpus-agent' }), [e('metadata.identity.type', '$.metadata.identity')]],
  'metadata-identity-unknown_key': [withIdentity({ owner: 'me' }), [e('metadata.identity.unknown_key', '$.metadata.identity.owner')]],
  'metadata-identity-agent_id-required': [withMeta({ identity: { namespace: 'acme' } }), [e('metadata.identity.agent_id.required', '$.metadata.identity.agent_id')]],
  'metadata-identity-agent_id-pattern': [withIdentity({ agent_id: 'corpus.agent' }), [e('metadata.identity.agent_id.pattern', '$.metadata.identity.agent_id')]],
  'metadata-identity-agent_id-max_length': [withIdentity({ agent_id: 'a'.repeat(64) }), [e('metadata.identity.agent_id.max_length', '$.metadata.identity.agent_id')]],
  'metadata-identity-namespace-pattern': [withIdentity({ namespace: 'acme/agents/' }), [e('metadata.identity.namespace.pattern', '$.metadata.identity.namespace')]],
  'metadata-identity-namespace-max_length': [withIdentity({ namespace: `${'a'.repeat(200)}/${'b'.repeat(53)}` }), [e('metadata.identity.namespace.max_length', '$.metadata.identity.namespace')]],
  'metadata-identity-version-semver': [withIdentity({ version: '1.0' }), [e('metadata.identity.version.semver', '$.metadata.identity.version')]],
  'metadata-identity-checksum-pattern': [withIdentity({ checksum: 'md5:d41d8cd98f00b204e9800998ecf8427e' }), [e('metadata.identity.checksum.pattern', '$.metadata.identity.checksum')]],
  'metadata-identity-checksum-pattern-uppercase': [withIdentity({ checksum: `sha256:${'AB'.repeat(32)}` }), [e('metadata.identity.checksum.pattern', '$.metadata.identity.checksum')]],
  'metadata-identity-created_at-date_time': [withIdentity({ created_at: '2026-01-15' }), [e('metadata.identity.created_at.date_time', '$.metadata.identity.created_at')]],
  'metadata-identity-updated_at-date_time': [withIdentity({ updated_at: '2026-01-15T25:00:00Z' }), [e('metadata.identity.updated_at.date_time', '$.metadata.identity.updated_at')]],
  // publisher
  'metadata-identity-publisher-unknown_key': [withPublisher({ phone: '+1 555 0100' }), [e('metadata.identity.publisher.unknown_key', '$.metadata.identity.publisher.phone')]],
  'metadata-identity-publisher-name-required': [withIdentity({ publisher: { email: 'agents@example.org' } }), [e('metadata.identity.publisher.name.required', '$.metadata.identity.publisher.name')]],
  'metadata-identity-publisher-name-max_length': [withPublisher({ name: 'p'.repeat(201) }), [e('metadata.identity.publisher.name.max_length', '$.metadata.identity.publisher.name')]],
  'metadata-identity-publisher-email-email': [withPublisher({ email: 'agents-at-example.org' }), [e('metadata.identity.publisher.email.email', '$.metadata.identity.publisher.email')]],
  'metadata-identity-publisher-website-uri': [withPublisher({ website: 'example.org' }), [e('metadata.identity.publisher.website.uri', '$.metadata.identity.publisher.website')]],
  'metadata-identity-publisher-pgp_key-pgp_key': [withPublisher({ pgp_key: 'my key' }), [e('metadata.identity.publisher.pgp_key.pgp_key', '$.metadata.identity.publisher.pgp_key')]],
  'metadata-identity-publisher-registry_url-uri': [withPublisher({ registry_url: '/registry' }), [e('metadata.identity.publisher.registry_url.uri', '$.metadata.identity.publisher.registry_url')]],
  // catalog
  'metadata-catalog-unknown_key': [withMeta({ catalog: { published: true, pricing: 'free' } }), [e('metadata.catalog.unknown_key', '$.metadata.catalog.pricing')]],
  'metadata-catalog-published-type': [withMeta({ catalog: { published: 'yes' } }), [e('metadata.catalog.published.type', '$.metadata.catalog.published')]],
  'metadata-catalog-catalog_id-type': [withMeta({ catalog: { catalog_id: 17 } }), [e('metadata.catalog.catalog_id.type', '$.metadata.catalog.catalog_id')]],
  'metadata-catalog-visibility-enum': [withMeta({ catalog: { visibility: 'shared' } }), [e('metadata.catalog.visibility.enum', '$.metadata.catalog.visibility')]],
  'metadata-catalog-categories-type': [withMeta({ catalog: { categories: 'security' } }), [e('metadata.catalog.categories.type', '$.metadata.catalog.categories')]],
  'metadata-catalog-tags-item-type': [withMeta({ catalog: { tags: ['ok', 7] } }), [e('metadata.catalog.tags.type', '$.metadata.catalog.tags[1]')]],
  // mesh bindings
  'metadata-mesh_bindings-unknown_key': [withMeta({ mesh_bindings: { cluster: 'eu-1' } }), [e('metadata.mesh_bindings.unknown_key', '$.metadata.mesh_bindings.cluster')]],
  'metadata-mesh_bindings-source_project_id-type': [withMeta({ mesh_bindings: { source_project_id: 1234 } }), [e('metadata.mesh_bindings.source_project_id.type', '$.metadata.mesh_bindings.source_project_id')]],
  'metadata-mesh_bindings-execution_node_id-uuid': [withMeta({ mesh_bindings: { execution_node_id: 'node-7' } }), [e('metadata.mesh_bindings.execution_node_id.uuid', '$.metadata.mesh_bindings.execution_node_id')]],
  // security posture
  'security-capabilities-type': [withSecurity({ capabilities: ['gpu'] }), [e('security.capabilities.type', '$.security.capabilities')]],
  'security-capabilities-required-type': [withSecurity({ capabilities: { required: 'gpu' } }), [e('security.capabilities.required.type', '$.security.capabilities.required')]],
  'security-sandboxing-type': [withSecurity({ sandboxing: true }), [e('security.sandboxing.type', '$.security.sandboxing')]],
  'security-sandboxing-resource_limits-type': [withSecurity({ sandboxing: { required: true, resource_limits: '2 cores' } }), [e('security.sandboxing.resource_limits.type', '$.security.sandboxing.resource_limits')]],
  'security-sandboxing-resource_limits-max_cpu_cores-type': [withLimits({ max_cpu_cores: '2' }), [e('security.sandboxing.resource_limits.max_cpu_cores.type', '$.security.sandboxing.resource_limits.max_cpu_cores')]],
  'security-threat_model-item-type': [withSecurity({ threat_model: ['prompt-injection'] }), [e('security.threat_model.type', '$.security.threat_model[0]')]],
  'security-threat_model-mitigations-item-type': [withThreat({ mitigations: [{ name: 'rate-limiting' }] }), [e('security.threat_model.mitigations.type', '$.security.threat_model[0].mitigations[0]')]],
  'security-tier-enum': [withSecurity({ tier: 'tier_5_root' }), [e('security.tier.enum', '$.security.tier')]],
  'security-threat_model-type': [withSecurity({ threat_model: { category: 'custom' } }), [e('security.threat_model.type', '$.security.threat_model')]],
  'security-threat_model-unknown_key': [withThreat({ likelihood: 'high' }), [e('security.threat_model.unknown_key', '$.security.threat_model[0].likelihood')]],
  'security-threat_model-category-required': [withSecurity({ threat_model: [{ severity: 'high' }] }), [e('security.threat_model.category.required', '$.security.threat_model[0].category')]],
  'security-threat_model-category-enum': [withThreat({ category: 'jailbreak' }), [e('security.threat_model.category.enum', '$.security.threat_model[0].category')]],
  'security-threat_model-severity-enum': [withThreat({ severity: 'severe' }), [e('security.threat_model.severity.enum', '$.security.threat_model[0].severity')]],
  'security-threat_model-mitigations-type': [withThreat({ mitigations: 'input-validation' }), [e('security.threat_model.mitigations.type', '$.security.threat_model[0].mitigations')]],
  'security-threat_model-description-max_length': [withThreat({ description: 'd'.repeat(501) }), [e('security.threat_model.description.max_length', '$.security.threat_model[0].description')]],
  'security-capabilities-required-enum': [withSecurity({ capabilities: { required: ['network-outbound', 'internet'] } }), [e('security.capabilities.required.enum', '$.security.capabilities.required[1]')]],
  'security-capabilities-required-unique': [withSecurity({ capabilities: { required: ['gpu', 'browser', 'gpu'] } }), [e('security.capabilities.required.unique', '$.security.capabilities.required')]],
  'security-capabilities-optional-enum': [withSecurity({ capabilities: { optional: ['filesystem'] } }), [e('security.capabilities.optional.enum', '$.security.capabilities.optional[0]')]],
  'security-capabilities-optional-unique': [withSecurity({ capabilities: { optional: ['env-read', 'env-read'] } }), [e('security.capabilities.optional.unique', '$.security.capabilities.optional')]],
  'security-sandboxing-required-required': [withSecurity({ sandboxing: { type: 'container' } }), [e('security.sandboxing.required.required', '$.security.sandboxing.required')]],
  'security-sandboxing-required-type': [withSecurity({ sandboxing: { required: 'yes' } }), [e('security.sandboxing.required.type', '$.security.sandboxing.required')]],
  'security-sandboxing-type-enum': [withSecurity({ sandboxing: { required: true, type: 'docker' } }), [e('security.sandboxing.type.enum', '$.security.sandboxing.type')]],
  'security-sandboxing-resource_limits-max_memory_mb-minimum': [withLimits({ max_memory_mb: 63 }), [e('security.sandboxing.resource_limits.max_memory_mb.minimum', '$.security.sandboxing.resource_limits.max_memory_mb')]],
  'security-sandboxing-resource_limits-max_memory_mb-type': [withLimits({ max_memory_mb: 512.5 }), [e('security.sandboxing.resource_limits.max_memory_mb.type', '$.security.sandboxing.resource_limits.max_memory_mb')]],
  'security-sandboxing-resource_limits-max_cpu_cores-minimum': [withLimits({ max_cpu_cores: 0.05 }), [e('security.sandboxing.resource_limits.max_cpu_cores.minimum', '$.security.sandboxing.resource_limits.max_cpu_cores')]],
  'security-sandboxing-resource_limits-max_execution_seconds-minimum': [withLimits({ max_execution_seconds: 0 }), [e('security.sandboxing.resource_limits.max_execution_seconds.minimum', '$.security.sandboxing.resource_limits.max_execution_seconds')]],
  'security-sandboxing-resource_limits-max_execution_seconds-type': [withLimits({ max_execution_seconds: '60' }), [e('security.sandboxing.resource_limits.max_execution_seconds.type', '$.security.sandboxing.resource_limits.max_execution_seconds')]],
  'security-sandboxing-resource_limits-max_disk_mb-type': [withLimits({ max_disk_mb: 1.5 }), [e('security.sandboxing.resource_limits.max_disk_mb.type', '$.security.sandboxing.resource_limits.max_disk_mb')]],
  // extensions.runtime_framework
  'extensions-runtime_framework-type': [withRuntime(['agentscope'] as unknown as Doc), [e('extensions.runtime_framework.type', '$.extensions.runtime_framework')]],
  'extensions-runtime_framework-capabilities-type': [withRuntime({ capabilities: 'rag' }), [e('extensions.runtime_framework.capabilities.type', '$.extensions.runtime_framework.capabilities')]],
  'extensions-runtime_framework-compression-type': [withRuntime({ compression: true }), [e('extensions.runtime_framework.compression.type', '$.extensions.runtime_framework.compression')]],
  'extensions-runtime_framework-skill_dirs-item-type': [withRuntime({ skill_dirs: ['./skills', 3] }), [e('extensions.runtime_framework.skill_dirs.type', '$.extensions.runtime_framework.skill_dirs[1]')]],
  'extensions-runtime_framework-agent_class-enum-not-a-string': [withRuntime({ agent_class: 1 }), [e('extensions.runtime_framework.agent_class.enum', '$.extensions.runtime_framework.agent_class')]],
  'extensions-runtime_framework-unknown_key': [withRuntime({ agent_class: 'ReActAgent', model: 'gpt' }), [e('extensions.runtime_framework.unknown_key', '$.extensions.runtime_framework.model')]],
  'extensions-runtime_framework-version-pattern': [withRuntime({ version: '1.0' }), [e('extensions.runtime_framework.version.pattern', '$.extensions.runtime_framework.version')]],
  'extensions-runtime_framework-agent_class-enum': [withRuntime({ agent_class: 'ReactAgent' }), [e('extensions.runtime_framework.agent_class.enum', '$.extensions.runtime_framework.agent_class')]],
  'extensions-runtime_framework-capabilities-enum': [withRuntime({ capabilities: ['rag', 'vision'] }), [e('extensions.runtime_framework.capabilities.enum', '$.extensions.runtime_framework.capabilities[1]')]],
  'extensions-runtime_framework-memory_backend-enum': [withRuntime({ memory_backend: 'postgres' }), [e('extensions.runtime_framework.memory_backend.enum', '$.extensions.runtime_framework.memory_backend')]],
  'extensions-runtime_framework-orchestration-enum': [withRuntime({ orchestration: 'parallel' }), [e('extensions.runtime_framework.orchestration.enum', '$.extensions.runtime_framework.orchestration')]],
  'extensions-runtime_framework-max_iters-minimum': [withRuntime({ max_iters: 0 }), [e('extensions.runtime_framework.max_iters.minimum', '$.extensions.runtime_framework.max_iters')]],
  'extensions-runtime_framework-max_iters-maximum': [withRuntime({ max_iters: 101 }), [e('extensions.runtime_framework.max_iters.maximum', '$.extensions.runtime_framework.max_iters')]],
  'extensions-runtime_framework-max_iters-type': [withRuntime({ max_iters: 2.5 }), [e('extensions.runtime_framework.max_iters.type', '$.extensions.runtime_framework.max_iters')]],
  'extensions-runtime_framework-formatter-enum': [withRuntime({ formatter: 'mistral' }), [e('extensions.runtime_framework.formatter.enum', '$.extensions.runtime_framework.formatter')]],
  'extensions-runtime_framework-compression-enable-type': [withRuntime({ compression: { enable: 'true' } }), [e('extensions.runtime_framework.compression.enable.type', '$.extensions.runtime_framework.compression.enable')]],
  'extensions-runtime_framework-compression-trigger_threshold-type': [withRuntime({ compression: { trigger_threshold: '8k' } }), [e('extensions.runtime_framework.compression.trigger_threshold.type', '$.extensions.runtime_framework.compression.trigger_threshold')]],
  'extensions-runtime_framework-compression-keep_recent-type': [withRuntime({ compression: { keep_recent: 2.5 } }), [e('extensions.runtime_framework.compression.keep_recent.type', '$.extensions.runtime_framework.compression.keep_recent')]],
  'extensions-runtime_framework-skill_dirs-type': [withRuntime({ skill_dirs: './skills' }), [e('extensions.runtime_framework.skill_dirs.type', '$.extensions.runtime_framework.skill_dirs')]],
};

// Documents that must pass, with the warnings they must produce.
const maximal = (): Doc => ({
  apiVersion: 'std/v0.4.7',
  kind: 'Agent',
  metadata: {
    name: 'compliance-scanner',
    namespace: 'acme',
    version: '2.1.0-beta.1+build.7',
    description: 'Scans repositories against security policies and reports violations.',
    uuid: '7d444840-9dc0-4d3a-9a8a-3c0f7e3c8a11',
    machine_name: 'compliance_scanner',
    signature: 'see x-signature',
    sbom_pointer: 'https://example.org/sbom/compliance-scanner.cdx.json',
    status: 'active',
    labels: { team: 'platform-security', tier: 'production' },
    annotations: { 'example.org/owner': 'security team', note: 'a note longer than sixty-three characters is fine in an annotation value' },
    identity: {
      agent_id: 'compliance-scanner',
      namespace: 'example.org/acme/agents',
      version: '2.1.0',
      publisher: {
        name: 'Example Corp',
        email: 'agents@example.org',
        website: 'https://example.org',
        pgp_key: '4AEE18F83AFDEB23',
        registry_url: 'https://registry.example.org/acme',
      },
      created_at: '2026-01-15T00:00:00Z',
      updated_at: '2026-02-16T08:30:00.123+01:00',
    },
    catalog: { published: true, catalog_id: 'cat-42', visibility: 'public', categories: ['security', 'compliance'], tags: ['audit', 'sast'] },
    mesh_bindings: { source_project_id: 'acme/platform/scanner', execution_node_id: '9b2f4c1e-3d5a-4e6f-8a7b-1c2d3e4f5a6b' },
    agentType: 'custom',
    agentKind: 'analyst',
    'x-team-extension': { on_call: 'secops' },
  },
  spec: { role: 'You audit codebases against security policies.', llm: { provider: 'anthropic', model: 'claude', temperature: 0.1 }, tools: [{ name: 'scan_repository', type: 'function' }] },
  security: {
    tier: 'tier_3_write_elevated',
    threat_model: [
      { category: 'prompt-injection', severity: 'high', mitigations: ['input-validation', 'output-filtering'], description: 'Processes user-supplied code.' },
      { category: 'data-exfiltration', severity: 'medium', mitigations: ['network-allowlist'] },
      { category: 'custom', severity: 'informational' },
    ],
    capabilities: {
      required: ['filesystem-read', 'network-outbound', 'tool-execution'],
      optional: ['database-read', 'secrets-read', 'memory-extended', 'gpu'],
    },
    sandboxing: {
      required: true,
      type: 'container',
      resource_limits: { max_memory_mb: 2048, max_cpu_cores: 0.5, max_execution_seconds: 300, max_disk_mb: 512 },
    },
    network_access: { allowed_domains: ['api.example.org', '*.example.com'], protocols: ['https'] },
    data_classification: 'confidential',
    audit: { log_inputs: false, log_outputs: true, retention_days: 90 },
  },
  protocols: { mcp: { version: '1.0.0', role: 'server' }, a2a: { enabled: true } },
  token_efficiency: { budget: { max_input_tokens: 32000 } },
  cognition: { pattern: 'react', trace: { enabled: true } },
  governance: { authorization: { policy: 'cedar' }, compliance_profiles: ['soc2'] },
  extensions: {
    runtime_framework: {
      version: '1.0.4',
      agent_class: 'ReActAgent',
      capabilities: ['planning', 'rag', 'parallel_tool_calls'],
      memory_backend: 'redis',
      orchestration: 'msghub',
      max_iters: 25,
      formatter: 'a2a',
      compression: { enable: true, trigger_threshold: 8000, keep_recent: 5 },
      skill_dirs: ['./skills', './shared-skills'],
    },
    'x-acme': { cost_center: 'sec-1' },
  },
  runtime: { bindings: [] },
  composition: { mode: 'sequential' },
  'x-root-extension': true,
});

// What most published agents look like; the benchmark's "typical" manifest.
const typical = (): Doc => ({
  apiVersion: 'std/v0.4.7',
  kind: 'Agent',
  metadata: {
    name: 'support-assistant',
    namespace: 'acme',
    version: '1.4.2',
    description: 'Answers customer questions from the knowledge base and opens tickets when it cannot.',
    labels: { team: 'support', env: 'production' },
    identity: { agent_id: 'support-assistant', namespace: 'acme/support', version: '1.4.2', publisher: { name: 'Acme Inc', email: 'agents@example.org' } },
    agentType: 'claude',
    agentKind: 'assistant',
  },
  spec: {
    role: 'You are a helpful support assistant.',
    llm: { provider: 'anthropic', model: 'claude-sonnet', temperature: 0.2 },
    tools: [{ name: 'search_kb', type: 'mcp' }, { name: 'create_ticket', type: 'function' }],
  },
  security: {
    tier: 'tier_2_write_limited',
    capabilities: { required: ['network-outbound', 'tool-execution'], optional: ['memory-extended'] },
    sandboxing: { required: true, type: 'container', resource_limits: { max_memory_mb: 512, max_cpu_cores: 1, max_execution_seconds: 120 } },
  },
  protocols: { mcp: { version: '1.0.0', role: 'client' } },
});

const valid: Record<string, [Doc, Expect[]]> = {
  typical: [typical(), []],
  'kind-agent-minimal': [{ apiVersion: 'std/v0.4.7', kind: 'Agent', metadata: { name: 'hello-agent' } }, []],
  'kind-task': [{ apiVersion: 'std/v0.4.7', kind: 'Task', metadata: { name: 'data-transform', version: '1.0.0' }, spec: { steps: [{ name: 'extract' }, { name: 'load' }] }, runtime: { bindings: { extract: 'tool:sql' } } }, []],
  'kind-workflow': [{ apiVersion: 'std/v0.4', kind: 'Workflow', metadata: { name: 'simple-etl', version: '0.3.0' }, spec: { steps: [{ ref: 'data-transform' }] }, composition: { sequential: ['extract', 'load'] } }, []],
  'kind-flow': [{ apiVersion: 'std/v0.4.7', kind: 'Flow', metadata: { name: 'event-stream', namespace: 'streams' }, spec: { source: 'kafka://events', sink: 'webhook' } }, []],
  maximal: [maximal(), []],
  'apiVersion-four-segments': [{ ...base(), apiVersion: 'std/v0.4.7.0' }, []],
  'apiVersion-suffix-with-hyphens-and-dots': [{ ...base(), apiVersion: 'std/v0.4.7-rc.1-hotfix' }, []],
  'apiVersion-0.3.4-legacy': [{ ...base(), apiVersion: 'std/v0.3.4' }, [e('apiVersion.legacy', '$.apiVersion')]],
  'apiVersion-0.2.9-dev-legacy': [{ ...base(), apiVersion: 'std/v0.2.9-dev' }, [e('apiVersion.legacy', '$.apiVersion')]],
  'apiVersion-1-newer': [{ ...base(), apiVersion: 'std/v1' }, [e('apiVersion.newer', '$.apiVersion')]],
  'apiVersion-0.5-newer': [{ ...base(), apiVersion: 'std/v0.5.0' }, [e('apiVersion.newer', '$.apiVersion')]],
  'status-deprecated-with-message': [withMeta({ status: 'deprecated', deprecated_message: 'Use corpus-agent-v2.' }), []],
  'status-deprecated-without-message': [withMeta({ status: 'deprecated' }), [e('metadata.deprecated_message.missing', '$.metadata.deprecated_message')]],
  'status-revoked-with-time': [withMeta({ status: 'revoked', revoked_at: '2026-03-01T12:00:00Z' }), []],
  'status-revoked-without-time': [withMeta({ status: 'revoked' }), [e('metadata.revoked_at.missing', '$.metadata.revoked_at')]],
  'x-signature-jwt-unsupported': [withMeta({ 'x-signature': { type: 'jwt', value: 'eyJhbGciOiJFUzI1NiJ9.e30.c2ln', publicKey: 'a2V5', issuer: 'did:web:example.org' } }), [e('metadata.x-signature.type.unsupported', '$.metadata["x-signature"].type')]],
  'extra-keys-kept-where-allowed': [{ ...withMeta({ owner: 'me' }), x_root: 1, extensions: { agentscope: { anything: true } }, security: { sandboxing: { required: false, network: 'none', resource_limits: { max_gpus: 1 } }, capabilities: { note: 'x' } } }, []],
};

function header(lines: string[]): string {
  return lines.length ? `${lines.join('\n')}\n` : '';
}

function write(dir: string, name: string, doc: Doc, expectLines: string[], format: 'yaml' | 'json' = 'yaml'): void {
  if (format === 'json') {
    writeFileSync(join(dir, `${name}.json`), `${JSON.stringify(doc, null, 2)}\n`);
    if (expectLines.length) writeFileSync(join(dir, `${name}.expect`), header(expectLines.map((l) => l.replace(/^# /, ''))));
    return;
  }
  writeFileSync(join(dir, `${name}.yaml`), header(expectLines) + YAML.stringify(doc, { lineWidth: 0 }));
}

const root = __dirname;
for (const dir of ['valid', 'invalid', 'unverified']) {
  rmSync(join(root, dir), { recursive: true, force: true });
  mkdirSync(join(root, dir));
}
for (const [name, [doc, expected]] of Object.entries(invalid)) {
  write(join(root, 'invalid'), name, doc, expected.map(([code, path]) => `# expect: ${code} @ ${path}`));
}
for (const [name, [doc, warnings]] of Object.entries(valid)) {
  write(join(root, 'valid'), name, doc, warnings.map(([code, path]) => `# expect-warning: ${code} @ ${path}`));
}
write(join(root, 'valid'), 'maximal', maximal(), [], 'json');

// Signed manifests: one per verifiable algorithm, with a checksum, and their tampered copies.
const keys = {
  Ed25519: generateKeyPairSync('ed25519'),
  'RSA-PSS': generateKeyPairSync('rsa-pss', { modulusLength: 2048 }),
  ECDSA: generateKeyPairSync('ec', { namedCurve: 'P-256' }),
} as const;
for (const [type, { privateKey }] of Object.entries(keys)) {
  const slug = type.toLowerCase();
  const doc = maximal();
  doc.metadata.identity.checksum = manifestChecksum(doc, type === 'RSA-PSS' ? 'sha512' : 'sha256');
  const signed = signManifest(doc, privateKey, type as keyof typeof keys, { timestamp: '2026-03-01T12:00:00Z', issuer: 'https://example.org' });
  write(join(root, 'valid'), `signed-${slug}`, signed, []);
  const tampered = structuredClone(signed) as Doc;
  tampered.metadata['x-signature'].value = signManifest(withMeta({}), privateKey, type as keyof typeof keys).metadata['x-signature'].value;
  write(join(root, 'unverified'), `x-signature-${slug}-value-mismatch`, tampered, [
    `# expect-unverified: manifest.metadata.x-signature.value.mismatch @ $.metadata["x-signature"].value`,
  ]);
}
const signed = signManifest({ ...maximal() }, keys.Ed25519.privateKey, 'Ed25519');
const changed = structuredClone(signed) as Doc;
changed.security.tier = 'tier_4_system_admin';
write(join(root, 'unverified'), 'x-signature-manifest-changed-after-signing', changed, [`# expect-unverified: manifest.metadata.x-signature.value.mismatch @ $.metadata["x-signature"].value`]);
const wrongKey = structuredClone(signed) as Doc;
wrongKey.metadata['x-signature'].publicKey = keys.ECDSA.publicKey.export({ format: 'pem', type: 'spki' }).toString();
write(join(root, 'unverified'), 'x-signature-publicKey-wrong-key-type', wrongKey, [`# expect-unverified: manifest.metadata.x-signature.publicKey.type @ $.metadata["x-signature"].publicKey`]);
const badKey = structuredClone(signed) as Doc;
badKey.metadata['x-signature'].publicKey = 'bm90IGEga2V5';
write(join(root, 'unverified'), 'x-signature-publicKey-invalid', badKey, [`# expect-unverified: manifest.metadata.x-signature.publicKey.invalid @ $.metadata["x-signature"].publicKey`]);
const badValue = structuredClone(signed) as Doc;
badValue.metadata['x-signature'].value = 'not base64!';
write(join(root, 'unverified'), 'x-signature-value-base64', badValue, [`# expect-unverified: manifest.metadata.x-signature.value.base64 @ $.metadata["x-signature"].value`]);
const checksummed = maximal();
checksummed.metadata.identity.checksum = manifestChecksum(checksummed);
write(join(root, 'valid'), 'identity-checksum-sha256', checksummed, []);
const mismatch = structuredClone(checksummed);
mismatch.metadata.description = 'Changed after the checksum was computed.';
write(join(root, 'unverified'), 'metadata-identity-checksum-mismatch', mismatch, [`# expect-unverified: manifest.metadata.identity.checksum.mismatch @ $.metadata.identity.checksum`]);

// Documents that do not parse, or are not objects.
const raw: Record<string, [string, string, string]> = {
  'parse-yaml-syntax.yaml': ['manifest.parse.yaml', '$', 'apiVersion: std/v0.4.7\nkind: Agent\nmetadata:\n  name: [unclosed\n'],
  'parse-yaml-duplicate-key.yaml': ['manifest.parse.yaml', '$', 'apiVersion: std/v0.4.7\nkind: Agent\nkind: Task\nmetadata:\n  name: twice\n'],
  'parse-yaml-two-documents.yaml': ['manifest.parse.yaml', '$', 'apiVersion: std/v0.4.7\nkind: Agent\nmetadata:\n  name: one\n---\napiVersion: std/v0.4.7\nkind: Agent\nmetadata:\n  name: two\n'],
  'parse-json-syntax.json': ['manifest.parse.json', '$', '{ "apiVersion": "std/v0.4.7", "kind": "Agent", "metadata": { "name": "x" }, }\n'],
  'root-type-array.yaml': ['manifest.type', '$', '- apiVersion: std/v0.4.7\n  kind: Agent\n'],
};
// RFC 8785 has no NaN: the checksum cannot be computed, so it is not verified (the schema is met).
writeFileSync(
  join(root, 'unverified', 'canonical-form-nan-with-checksum.yaml'),
  '# expect-unverified: manifest.canonical_form @ $\napiVersion: std/v0.4.7\nkind: Agent\nmetadata:\n  name: nan-agent\n  identity:\n    agent_id: nan-agent\n    checksum: sha256:00\nspec:\n  temperature: .nan\n',
);
for (const [file, [code, path, text]] of Object.entries(raw)) {
  const line = `expect: ${code} @ ${path}`;
  if (file.endsWith('.json')) {
    writeFileSync(join(root, 'invalid', file), text);
    writeFileSync(join(root, 'invalid', file.replace(/\.json$/, '.expect')), `${line}\n`);
  } else {
    writeFileSync(join(root, 'invalid', file), `# ${line}\n${text}`);
  }
}
