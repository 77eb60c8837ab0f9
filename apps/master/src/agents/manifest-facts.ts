import type { Manifest } from '@platform/manifest';

/** What the master lists, filters and governs on, read from a valid manifest (spec 1's fields). */
export interface ManifestFacts {
  namespace: string;
  name: string;
  version: string | null;
  kind: string;
  agentType: string | null;
  agentKind: string | null;
  tier: string | null;
  status: string;
  visibility: string;
  description: string | null;
  /** Declared security capabilities, required and optional. */
  capabilities: string[];
  requiredCapabilities: string[];
}

/** Agents without `metadata.namespace` live in this one. */
export const DEFAULT_NAMESPACE = 'default';

export function manifestFacts(manifest: Manifest): ManifestFacts {
  const { metadata, security } = manifest;
  const required = security?.capabilities?.required ?? [];
  const optional = security?.capabilities?.optional ?? [];
  return {
    namespace: metadata.namespace ?? DEFAULT_NAMESPACE,
    name: metadata.name,
    version: metadata.version ?? null,
    kind: manifest.kind,
    agentType: metadata.agentType ?? null,
    agentKind: metadata.agentKind ?? null,
    tier: security?.tier ?? null,
    status: metadata.status ?? 'active',
    visibility: metadata.catalog?.visibility ?? 'private',
    description: metadata.description ?? null,
    capabilities: [...new Set([...required, ...optional])],
    requiredCapabilities: [...required],
  };
}

type Json = Record<string, unknown>;
const object = (value: unknown): Json => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {});
const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : []);

/** Compliance frameworks a manifest declares: `governance.compliance.frameworks` and `governance.compliance_profiles`. */
export function declaredFrameworks(manifest: Json): string[] {
  const governance = object(manifest.governance);
  const named = [...strings(object(governance.compliance).frameworks), ...strings(governance.compliance_profiles)];
  return [...new Set(named.map((framework) => framework.toLowerCase()))];
}
