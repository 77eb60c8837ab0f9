import type { master } from '@platform/contracts';
import {
  AGENT_KINDS,
  AGENT_TYPES,
  MANIFEST_KINDS,
  MANIFEST_PROTOCOLS,
  RUNTIME_AGENT_CLASSES,
  RUNTIME_CAPABILITIES,
  RUNTIME_FORMATTERS,
  RUNTIME_MEMORY_BACKENDS,
  RUNTIME_ORCHESTRATIONS,
  SANDBOX_TYPES,
  SCHEMA_VERSION,
  SECURITY_CAPABILITIES,
  SECURITY_TIERS,
  THREAT_CATEGORIES,
  THREAT_SEVERITIES,
  validateManifest,
} from '@platform/manifest';

/** Every list comes from `@platform/manifest`'s own enumerations: there is no second copy here. */
const TAXONOMIES: master.Taxonomies = {
  schemaVersion: SCHEMA_VERSION,
  kinds: [...MANIFEST_KINDS],
  agentKinds: [...AGENT_KINDS],
  agentTypes: [...AGENT_TYPES],
  tiers: [...SECURITY_TIERS],
  threatCategories: [...THREAT_CATEGORIES],
  threatSeverities: [...THREAT_SEVERITIES],
  capabilities: [...SECURITY_CAPABILITIES],
  sandboxTypes: [...SANDBOX_TYPES],
  protocols: [...MANIFEST_PROTOCOLS],
  runtimeFrameworks: {
    agentClasses: [...RUNTIME_AGENT_CLASSES],
    capabilities: [...RUNTIME_CAPABILITIES],
    memoryBackends: [...RUNTIME_MEMORY_BACKENDS],
    orchestrations: [...RUNTIME_ORCHESTRATIONS],
    formatters: [...RUNTIME_FORMATTERS],
  },
};

const CAPABILITIES = [
  ...SECURITY_CAPABILITIES.map((id) => ({ id, category: 'security' as const, manifestPath: '$.security.capabilities' })),
  ...RUNTIME_CAPABILITIES.map((id) => ({ id, category: 'runtime' as const, manifestPath: '$.extensions.runtime_framework.capabilities' })),
];

export class SpecificationService {
  /** The validator's verdict as is: a manifest that fails is a 200 with valid false. */
  validate(document: object): master.ValidationResult {
    const { valid, errors, warnings, schemaVersion } = validateManifest(document);
    return { valid, errors, warnings, schemaVersion };
  }

  taxonomies(): master.Taxonomies {
    return TAXONOMIES;
  }

  capabilities(category?: 'security' | 'runtime') {
    const items = category ? CAPABILITIES.filter((capability) => capability.category === category) : CAPABILITIES;
    return { items, total: items.length };
  }
}
