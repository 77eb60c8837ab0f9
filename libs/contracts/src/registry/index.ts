import { z } from 'zod';
import { PageQuery, QueryBoolean } from '../paging';

/**
 * Request and response bodies of the registry service (spec 2, "Registry API"). Agents are named
 * by `namespace` and `name` with the patterns of the manifest's `metadata` (spec 1).
 */
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export const RegistryNamespace = z.string().max(63).regex(DNS_LABEL, 'lowercase letters, digits and inner hyphens');
export const RegistryAgentName = z.string().max(253).regex(DNS_LABEL, 'lowercase letters, digits and inner hyphens');
/** A semantic version 2.0.0 (pre-release and build parts allowed). */
export const SemanticVersion = z
  .string()
  .max(256)
  .regex(
    /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/,
    'a semantic version such as 1.2.3 or 2.0.0-rc.1',
  );

/** Text Postgres can store and a filter can match: no NUL or other control characters. */
// eslint-disable-next-line no-control-regex
const PLAIN_TEXT = /^[^\u0000-\u001f\u007f]*$/;
const plain = (max: number) => z.string().min(1).max(max).regex(PLAIN_TEXT, 'no control characters');
// eslint-disable-next-line no-control-regex
const storable = (schema: z.ZodString) => schema.regex(/^[^\u0000]*$/, 'no NUL characters');

export const AgentParams = z.object({ namespace: RegistryNamespace, name: RegistryAgentName });
export type AgentParams = z.infer<typeof AgentParams>;
/** A version, or `latest` for the highest published non-prerelease. */
export const VersionParams = AgentParams.extend({ version: z.union([z.literal('latest'), SemanticVersion]) });
export type VersionParams = z.infer<typeof VersionParams>;

export const SecurityTier = z.enum(['tier_1_read', 'tier_2_write_limited', 'tier_3_write_elevated', 'tier_4_system_admin']);
export const ManifestKind = z.enum(['Agent', 'Task', 'Workflow', 'Flow']);

/** Filters shared by `GET /agents` and `GET /search`. */
export const AgentFilters = z.object({
  namespace: RegistryNamespace.optional(),
  certified: QueryBoolean.optional(),
  /** A compliance framework the agent declares (for example `soc2`); matched case-insensitively. */
  compliance: plain(64).optional(),
  /** A security capability from spec 1's list (for example `network-outbound`), required or optional. */
  capability: plain(64).optional(),
  kind: ManifestKind.optional(),
  agentKind: plain(64).optional(),
  tier: SecurityTier.optional(),
});

export const AgentListQuery = PageQuery.extend(AgentFilters.shape).strict();
export type AgentListQuery = z.infer<typeof AgentListQuery>;

export const SearchQuery = AgentListQuery.extend({
  q: z.string().trim().min(1, 'q is required').max(256).regex(PLAIN_TEXT, 'no control characters'),
  /**
   * Spec 2's `filters`: the same filters in one parameter, as `key:value` pairs separated by commas
   * (`certified:true,tier:tier_3_write_elevated`) or as a JSON object (`{"certified":true}`).
   */
  filters: z.string().max(1024).regex(PLAIN_TEXT, 'no control characters').optional(),
}).strict();
export type SearchQuery = z.infer<typeof SearchQuery>;

/** The filters of `filters=` once read; each value is checked like the separate parameter. */
export const SearchFilters = AgentFilters.extend({ certified: z.union([z.boolean(), QueryBoolean]).optional() }).strict();

const httpUrl = z
  .string()
  .url()
  .max(2048)
  .refine((value) => /^https?:\/\//.test(value), 'an http(s) URL');

/** Agent-level metadata (never the manifest): `PUT /agents/{namespace}/{name}`. `null` clears. */
export const AgentUpdateBody = z
  .object({
    displayName: storable(z.string().min(1).max(200)).nullable(),
    summary: storable(z.string().max(2000)).nullable(),
    homepage: httpUrl.nullable(),
    repository: httpUrl.nullable(),
    keywords: z.array(plain(63)).max(50),
    compliance: z
      .array(
        z
          .string()
          .min(1)
          .max(64)
          .regex(/^[a-z0-9][a-z0-9._-]*$/, 'lowercase framework identifiers such as soc2, hipaa, iso-27001'),
      )
      .max(30),
  })
  .partial()
  .strict()
  .refine((body) => Object.keys(body).length > 0, 'at least one field to change');
export type AgentUpdateBody = z.infer<typeof AgentUpdateBody>;

export const Agent = z
  .object({
    namespace: z.string(),
    name: z.string(),
    owner: z.string().describe('token `sub` of the namespace owner'),
    // Optional for clients that parse answers of registries from before teams (always sent now).
    team: z.string().nullable().optional().describe('the team the namespace is shared with: its editors publish and change its agents'),
    displayName: z.string().nullable(),
    summary: z.string().nullable(),
    homepage: z.string().nullable(),
    repository: z.string().nullable(),
    keywords: z.array(z.string()),
    compliance: z.array(z.string()),
    latestVersion: z.string().nullable(),
    description: z.string().nullable(),
    kind: z.string().nullable(),
    agentKind: z.string().nullable(),
    agentType: z.string().nullable(),
    tier: z.string().nullable(),
    status: z.string().nullable(),
    capabilities: z.array(z.string()),
    tags: z.array(z.string()),
    labels: z.record(z.string(), z.string()),
    certified: z.boolean(),
    certifiedVersion: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'RegistryAgent' });
export type Agent = z.infer<typeof Agent>;

export const AgentPage = z.object({ items: z.array(Agent), total: z.number().int(), limit: z.number().int(), offset: z.number().int() });
export type AgentPage = z.infer<typeof AgentPage>;

export const SearchHit = Agent.extend({ rank: z.number() }).meta({ id: 'RegistrySearchHit' });
export const SearchPage = z.object({
  query: z.string(),
  items: z.array(SearchHit),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});
export type SearchPage = z.infer<typeof SearchPage>;

export const ManifestIssueBody = z.object({ path: z.string(), message: z.string(), code: z.string() });

export const AgentVersion = z
  .object({
    namespace: z.string(),
    name: z.string(),
    version: z.string(),
    prerelease: z.boolean(),
    latest: z.boolean(),
    format: z.enum(['json', 'yaml']),
    digest: z.string().describe('sha256 of the manifest bytes as published'),
    size: z.number().int(),
    schemaVersion: z.string(),
    warnings: z.array(ManifestIssueBody),
    publishedBy: z.string(),
    publishedAt: z.string(),
    unpublished: z.boolean(),
    unpublishedAt: z.string().nullable(),
    certification: z.enum(['queued', 'running', 'passed', 'failed', 'error']).nullable(),
    manifestUrl: z.string(),
  })
  .meta({ id: 'RegistryAgentVersion' });
export type AgentVersion = z.infer<typeof AgentVersion>;

export const VersionDetail = AgentVersion.extend({ manifest: z.record(z.string(), z.unknown()) }).meta({ id: 'RegistryAgentVersionDetail' });
export type VersionDetail = z.infer<typeof VersionDetail>;

export const VersionListQuery = PageQuery.extend({
  /** Include pre-release versions (default true). */
  prerelease: QueryBoolean.default(true),
  /** Include unpublished versions (tombstones; default false). */
  unpublished: QueryBoolean.default(false),
  /** Semantic-version order: `desc` (highest first, the default) or `asc`. */
  order: z.enum(['asc', 'desc']).default('desc'),
}).strict();
export type VersionListQuery = z.infer<typeof VersionListQuery>;

export const VersionPage = z.object({
  items: z.array(AgentVersion),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
  latest: z.string().nullable(),
});
export type VersionPage = z.infer<typeof VersionPage>;

export const PublishResult = z.object({ agent: Agent, version: AgentVersion, created: z.boolean().describe('whether the agent was new') });
export type PublishResult = z.infer<typeof PublishResult>;

/** A team (auth's id): its members read what only a namespace's owner sees, its editors publish and change. */
export const TeamId = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[\x21-\x7e]+$/, 'a team id');
/** `POST /agents?team=`: the body is the manifest itself, so the team a new namespace is shared with is a parameter. */
export const PublishQuery = z.object({ team: TeamId.optional() }).strict();

/** The documented request body of the publish endpoints: the manifest itself (JSON or YAML). */
export const PublishBody = z
  .record(z.string(), z.unknown())
  .describe('The manifest (spec 1) as a JSON object; or send it as YAML with Content-Type application/yaml.');

export const CertificationStatus = z.enum(['queued', 'running', 'passed', 'failed', 'error']);
export const CheckOutcome = z.enum(['pass', 'fail', 'warn', 'skip']);
export const CertificationCheck = z.object({ id: z.string(), name: z.string(), outcome: CheckOutcome, message: z.string() });
export type CertificationCheck = z.infer<typeof CertificationCheck>;

export const CertificationRequestBody = z.object({ version: SemanticVersion.optional().describe('the version to certify; default the latest') }).strict();
export type CertificationRequestBody = z.infer<typeof CertificationRequestBody>;

export const Certification = z
  .object({
    id: z.string(),
    namespace: z.string(),
    name: z.string(),
    version: z.string(),
    status: CertificationStatus,
    requestedBy: z.string(),
    requestedAt: z.string(),
    startedAt: z.string().nullable(),
    completedAt: z.string().nullable(),
    checks: z.array(CertificationCheck),
    error: z.string().nullable(),
  })
  .meta({ id: 'RegistryCertification' });
export type Certification = z.infer<typeof Certification>;

export const CertificationListQuery = PageQuery.extend({
  namespace: RegistryNamespace.optional(),
  name: RegistryAgentName.optional(),
  status: CertificationStatus.optional(),
}).strict();
export type CertificationListQuery = z.infer<typeof CertificationListQuery>;

export const CertificationPage = z.object({ items: z.array(Certification), total: z.number().int(), limit: z.number().int(), offset: z.number().int() });

const isoDay = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'a day as YYYY-MM-DD')
  .refine((value) => !Number.isNaN(Date.parse(`${value}T00:00:00Z`)) && new Date(`${value}T00:00:00Z`).toISOString().startsWith(value), 'a real calendar day');

export const AnalyticsQuery = z.object({ from: isoDay.optional(), to: isoDay.optional() }).strict().describe('UTC days, inclusive; default the last 30 days');
export type AnalyticsQuery = z.infer<typeof AnalyticsQuery>;

export const AnalyticsBucket = z.object({ day: z.string(), views: z.number().int(), downloads: z.number().int(), searchAppearances: z.number().int() });
export const AnalyticsReport = z.object({
  namespace: z.string(),
  name: z.string(),
  from: z.string(),
  to: z.string(),
  totals: z.object({ views: z.number().int(), downloads: z.number().int(), searchAppearances: z.number().int() }),
  buckets: z.array(AnalyticsBucket),
});
export type AnalyticsReport = z.infer<typeof AnalyticsReport>;
