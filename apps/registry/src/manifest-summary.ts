/** What the registry lists, filters and searches on, read from a manifest (spec 1's fields). */
export interface ManifestSummary {
  description: string | null;
  kind: string | null;
  agentKind: string | null;
  agentType: string | null;
  tier: string | null;
  status: string | null;
  capabilities: string[];
  tags: string[];
  labels: Record<string, string>;
  compliance: string[];
}

type Json = Record<string, unknown>;
const object = (value: unknown): Json => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {});
const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : []);
const unique = (values: string[]): string[] => [...new Set(values)];

export function summarizeManifest(document: Json): ManifestSummary {
  const metadata = object(document.metadata);
  const security = object(document.security);
  const capabilities = object(security.capabilities);
  const catalog = object(metadata.catalog);
  const governance = object(document.governance);
  const compliance = object(governance.compliance);
  const labels = Object.fromEntries(Object.entries(object(metadata.labels)).filter(([, value]) => typeof value === 'string')) as Record<string, string>;
  return {
    description: text(metadata.description),
    kind: text(document.kind),
    agentKind: text(metadata.agentKind),
    agentType: text(metadata.agentType),
    tier: text(security.tier),
    status: text(metadata.status) ?? 'active',
    capabilities: unique([...strings(capabilities.required), ...strings(capabilities.optional)]),
    tags: unique([...strings(catalog.tags), ...strings(catalog.categories)]),
    labels,
    compliance: unique([...strings(compliance.frameworks), ...strings(governance.compliance_profiles)].map((framework) => framework.toLowerCase())),
  };
}

export const EMPTY_SUMMARY: ManifestSummary = {
  description: null,
  kind: null,
  agentKind: null,
  agentType: null,
  tier: null,
  status: null,
  capabilities: [],
  tags: [],
  labels: {},
  compliance: [],
};

/** The words the full-text index covers besides name and description. */
export function searchTerms(namespace: string, summary: ManifestSummary, keywords: string[], compliance: string[]): string {
  return [
    namespace,
    summary.kind,
    summary.agentKind,
    summary.agentType,
    ...summary.tags,
    ...summary.capabilities,
    ...keywords,
    ...compliance,
    ...Object.entries(summary.labels).flatMap(([key, value]) => [key, value]),
  ]
    .filter(Boolean)
    .join(' ');
}
