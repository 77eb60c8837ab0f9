import { z } from 'zod';
import { PageQuery } from '../paging';

/**
 * Request and response bodies of the master orchestration API (spec 2, "Master API", 0.1.9).
 * Manifests are spec 1 documents; their own schema lives in `@platform/manifest`.
 */
// eslint-disable-next-line no-control-regex
const PLAIN_TEXT = /^[^\u0000-\u001f\u007f]*$/;
const plain = (max: number) => z.string().min(1).max(max).regex(PLAIN_TEXT, 'no control characters');
const iso = z.iso.datetime({ offset: true });

const httpUrl = z.url({ protocol: /^https?$/ }).max(2048);

export const Id = z.uuid();
export const ManifestDocument = z.record(z.string(), z.unknown()).describe('An agent manifest (spec 1) as a JSON object');

export const Issue = z.object({ path: z.string(), code: z.string(), message: z.string() });
export type Issue = z.infer<typeof Issue>;

// ---------------------------------------------------------------------------------------------
// Agents
export const AgentParams = z.object({ agentId: Id });
export const AgentSort = z.enum(['name', '-name', 'createdAt', '-createdAt', 'updatedAt', '-updatedAt']);
export const AgentListQuery = PageQuery.extend({
  /** The manifest kind (Agent, Task, Workflow, Flow). */
  type: z.enum(['Agent', 'Task', 'Workflow', 'Flow']).optional(),
  /** A security capability the agent declares (required or optional). */
  capability: plain(64).optional(),
  /** metadata.status of the manifest: active, deprecated, revoked. */
  status: z.enum(['active', 'deprecated', 'revoked']).optional(),
  /** Search text: name, namespace and description (case-insensitive substring). */
  q: plain(200).optional(),
  sort: AgentSort.default('name'),
  /** `local` (default), a peer's URL, or `all`. */
  origin: plain(2048).default('local'),
  visibility: z.enum(['public', 'private', 'internal']).optional(),
}).strict();
export type AgentListQuery = z.infer<typeof AgentListQuery>;

export const Agent = z
  .object({
    id: z.string(),
    origin: z.string().describe('"local", or the URL of the federation peer it is mirrored from (read-only)'),
    namespace: z.string(),
    name: z.string(),
    version: z.string().nullable(),
    type: z.string().describe('manifest kind'),
    agentType: z.string().nullable(),
    agentKind: z.string().nullable(),
    tier: z.string().nullable(),
    status: z.string(),
    visibility: z.string(),
    description: z.string().nullable(),
    capabilities: z.array(z.string()),
    certification: z.object({ id: z.string(), status: z.string() }).nullable(),
    manifest: ManifestDocument,
    createdBy: z.string(),
    owner: z.string().nullable().describe('the `sub` of the token that created it; null: created before owners were recorded (admin only)'),
    team: z.string().nullable().describe('the team it is shared with'),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'MasterAgent' });
export type Agent = z.infer<typeof Agent>;

export const AgentPage = z.object({ items: z.array(Agent), total: z.number().int(), limit: z.number().int(), offset: z.number().int() });
export type AgentPage = z.infer<typeof AgentPage>;

/** A team id in a create request: the new resource is shared with that team (the caller must be one of its editors). */
export const TeamId = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[\x21-\x7e]+$/, 'a team id');
/** The query of `POST /agents`, whose body is the manifest itself. */
export const AgentCreateQuery = z.object({ team: TeamId.optional() }).strict();

// ---------------------------------------------------------------------------------------------
// Specification
export const ValidationResult = z
  .object({ valid: z.boolean(), errors: z.array(Issue), warnings: z.array(Issue), schemaVersion: z.string() })
  .meta({ id: 'MasterValidationResult' });
export type ValidationResult = z.infer<typeof ValidationResult>;

export const Taxonomies = z.object({
  schemaVersion: z.string(),
  kinds: z.array(z.string()),
  agentKinds: z.array(z.string()),
  agentTypes: z.array(z.string()),
  tiers: z.array(z.string()),
  threatCategories: z.array(z.string()),
  threatSeverities: z.array(z.string()),
  capabilities: z.array(z.string()),
  sandboxTypes: z.array(z.string()),
  protocols: z.array(z.string()),
  runtimeFrameworks: z.object({
    agentClasses: z.array(z.string()),
    capabilities: z.array(z.string()),
    memoryBackends: z.array(z.string()),
    orchestrations: z.array(z.string()),
    formatters: z.array(z.string()),
  }),
});
export type Taxonomies = z.infer<typeof Taxonomies>;

export const CapabilityCategory = z.enum(['security', 'runtime']);
export const CapabilitiesQuery = z.object({ category: CapabilityCategory.optional() }).strict();
export const CapabilityList = z.object({
  items: z.array(z.object({ id: z.string(), category: CapabilityCategory, manifestPath: z.string() })),
  total: z.number().int(),
});

// ---------------------------------------------------------------------------------------------
// Orchestration
const StepId = z
  .string()
  .min(1)
  .max(63)
  .regex(/^[a-zA-Z][a-zA-Z0-9_-]*$/, 'a letter, then letters, digits, _ or -');
const SECURITY_CAPABILITY = plain(64);
/** Literal values, or strings with `{{input.x}}` / `{{steps.<id>.output.x}}` placeholders. */
const StepInputs = z.record(z.string().max(128), z.unknown());

export const WorkflowStep = z
  .object({
    id: StepId,
    /** The agent that runs the step (its id in this API). */
    agentId: Id,
    dependsOn: z.array(StepId).max(100).default([]),
    inputs: StepInputs.default({}),
    /** The agent's task endpoint the engine calls; default: the manifest's `spec.endpoint`. */
    url: httpUrl.optional(),
    /** Capabilities the step needs of its agent: each must be declared in its manifest. */
    requires: z.array(SECURITY_CAPABILITY).max(18).default([]),
  })
  .strict();
export type WorkflowStep = z.infer<typeof WorkflowStep>;

export const WorkflowCreateBody = z
  .object({
    name: plain(200),
    description: z.string().max(2000).optional(),
    steps: z.array(WorkflowStep).min(1).max(100),
    /**
     * Capabilities the workflow's run is granted (default: every capability the platform offers,
     * MASTER_AVAILABLE_CAPABILITIES). An agent requiring one that is not granted is refused.
     */
    capabilities: z.array(SECURITY_CAPABILITY).max(18).optional(),
    /** The team the workflow is shared with (the caller must be one of its editors). */
    team: TeamId.optional(),
  })
  .strict();
export type WorkflowCreateBody = z.infer<typeof WorkflowCreateBody>;

export const Workflow = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    steps: z.array(WorkflowStep),
    capabilities: z.array(z.string()),
    createdBy: z.string(),
    owner: z.string().nullable().describe('the `sub` of the token that created it; null: created before owners were recorded (admin only)'),
    team: z.string().nullable().describe('the team it is shared with'),
    createdAt: z.string(),
  })
  .meta({ id: 'MasterWorkflow' });
export type Workflow = z.infer<typeof Workflow>;

export const WorkflowListQuery = PageQuery.extend({ q: plain(200).optional() }).strict();
export const WorkflowPage = z.object({ items: z.array(Workflow), total: z.number().int(), limit: z.number().int(), offset: z.number().int() });
export const WorkflowParams = z.object({ workflowId: Id });
export const ExecuteBody = z.object({ inputs: z.record(z.string().max(128), z.unknown()).default({}) }).strict();
export const ExecutionParams = z.object({ executionId: Id });

export const ExecutionState = z.enum(['pending', 'running', 'completed', 'failed', 'cancelled']);
export type ExecutionState = z.infer<typeof ExecutionState>;
export const StepState = z.object({
  id: z.string(),
  agentId: z.string(),
  state: z.string(),
  output: z.unknown().optional(),
  error: z.string().nullable().optional(),
});
export type StepState = z.infer<typeof StepState>;

export const Execution = z
  .object({
    id: z.string(),
    workflowId: z.string(),
    workersWorkflowId: z.string().nullable(),
    state: ExecutionState,
    inputs: z.record(z.string(), z.unknown()),
    steps: z.array(StepState),
    error: z.string().nullable(),
    requestedBy: z.string(),
    owner: z.string().nullable().describe('the `sub` of the token that created it; null: created before owners were recorded (admin only)'),
    team: z.string().nullable().describe('the team it is shared with'),
    createdAt: z.string(),
    updatedAt: z.string(),
    completedAt: z.string().nullable(),
    lastSyncedAt: z.string().nullable(),
  })
  .meta({ id: 'MasterExecution' });
export type Execution = z.infer<typeof Execution>;

// ---------------------------------------------------------------------------------------------
// Certification
export const CertificationRequestBody = z
  .object({ agentId: Id, version: z.string().max(256).optional().describe('default: metadata.version of the agent manifest') })
  .strict();
export const CertificationParams = z.object({
  certificationId: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[a-zA-Z0-9-]+$/),
});
export const CertificationCheck = z.object({ id: z.string(), name: z.string(), outcome: z.string(), message: z.string() });
export const Certification = z
  .object({
    id: z.string(),
    agentId: z.string(),
    namespace: z.string(),
    name: z.string(),
    version: z.string(),
    status: z.string().describe('queued, running, passed, failed, error (the registry owns the certification)'),
    checks: z.array(CertificationCheck),
    error: z.string().nullable(),
    requestedBy: z.string(),
    owner: z.string().nullable().describe('the `sub` of the token that created it; null: created before owners were recorded (admin only)'),
    team: z.string().nullable().describe('the team it is shared with'),
    requestedAt: z.string(),
    completedAt: z.string().nullable(),
  })
  .meta({ id: 'MasterCertification' });
export type Certification = z.infer<typeof Certification>;

// ---------------------------------------------------------------------------------------------
// Governance
export const Policy = z
  .object({
    id: z.string(),
    source: z.enum(['builtin', 'config']),
    name: z.string(),
    description: z.string(),
    severity: z.enum(['error', 'warning']),
    appliesTo: z.unknown().nullable().describe('JSON Logic: when the policy applies (null: always)'),
    rule: z.unknown().describe('JSON Logic over the manifest that must hold'),
    path: z.string().describe('JSON path of the manifest a violation points at'),
    message: z.string(),
  })
  .meta({ id: 'MasterPolicy' });
export type Policy = z.infer<typeof Policy>;
export const PolicyList = z.object({ items: z.array(Policy), total: z.number().int() });

/** An operator policy (MASTER_POLICIES, a JSON array of these). */
export const OperatorPolicy = z
  .object({
    id: z
      .string()
      .min(1)
      .max(100)
      .regex(/^[a-z0-9][a-z0-9._-]*$/),
    name: z.string().min(1).max(200),
    description: z.string().max(2000).default(''),
    severity: z.enum(['error', 'warning']).default('error'),
    appliesTo: z.unknown().optional(),
    rule: z.unknown(),
    path: z.string().startsWith('$').max(500).default('$'),
    message: z.string().min(1).max(1000),
  })
  .strict();
export type OperatorPolicy = z.infer<typeof OperatorPolicy>;

export const Violation = z.object({ policyId: z.string(), severity: z.enum(['error', 'warning']), path: z.string(), message: z.string() });
export const ComplianceReport = z
  .object({
    agentId: z.string(),
    compliant: z.boolean(),
    violations: z.array(Violation),
    frameworks: z.array(z.string()).describe('compliance frameworks the manifest declares (governance.compliance.frameworks, governance.compliance_profiles)'),
    policiesEvaluated: z.number().int(),
    evaluatedAt: z.string(),
  })
  .meta({ id: 'MasterComplianceReport' });
export type ComplianceReport = z.infer<typeof ComplianceReport>;

// ---------------------------------------------------------------------------------------------
// Federation
export const JoinBody = z
  .object({
    name: z
      .string()
      .min(1)
      .max(63)
      .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'lowercase letters, digits and inner hyphens'),
    /** The peer's master API base URL, for example https://peer.example/api/v1. */
    url: httpUrl,
    /** A token the peer's operator issued (RS256, signed by the peer's auth keys, with agents:read). */
    token: z.string().min(20).max(8192),
    /** Where the peer's auth service publishes its keys (default: <url origin>/.well-known/jwks.json). */
    jwksUrl: httpUrl.optional(),
    /** The peer's token issuer; when absent the token's own `iss` is taken once its signature verifies. */
    issuer: z.string().max(2048).optional(),
    /** The peer's health URL (default: <url origin>/health). */
    healthUrl: httpUrl.optional(),
  })
  .strict();
export type JoinBody = z.infer<typeof JoinBody>;

export const Peer = z
  .object({
    id: z.string(),
    name: z.string(),
    url: z.string(),
    issuer: z.string(),
    state: z.enum(['active', 'unreachable', 'unauthorized']),
    lastSyncAt: z.string().nullable(),
    lastError: z.string().nullable(),
    agentCount: z.number().int(),
    tokenExpiresAt: z.string().nullable(),
    joinedBy: z.string(),
    createdAt: z.string(),
  })
  .meta({ id: 'MasterPeer' });
export type Peer = z.infer<typeof Peer>;
export const PeerList = z.object({ items: z.array(Peer), total: z.number().int() });

// ---------------------------------------------------------------------------------------------
// Monitoring
export const Metrics = z.object({
  agents: z.object({ total: z.number().int(), byStatus: z.record(z.string(), z.number().int()), mirrored: z.number().int() }),
  executions: z.object({ total: z.number().int(), byState: z.record(z.string(), z.number().int()) }),
  certifications: z.object({ total: z.number().int(), byStatus: z.record(z.string(), z.number().int()) }),
  federation: z.object({ peers: z.number().int(), byState: z.record(z.string(), z.number().int()) }),
  queues: z.record(z.string(), z.record(z.string(), z.number().int())),
  dependencies: z.record(z.string(), z.enum(['up', 'down'])),
  collectedAt: z.string(),
});
export type Metrics = z.infer<typeof Metrics>;

export const EventQuery = PageQuery.extend({
  /** An event type (`agent.created`) or a family (`agent.*`). */
  type: z
    .string()
    .max(100)
    .regex(/^[a-z_]+(\.[a-z_]+)*(\.\*)?$/, 'an event type such as agent.created, or agent.*')
    .optional(),
  from: iso.optional(),
  to: iso.optional(),
}).strict();
export type EventQuery = z.infer<typeof EventQuery>;
export const Event = z
  .object({ id: z.string(), type: z.string(), subject: z.string().nullable(), actor: z.string().nullable(), data: z.unknown(), createdAt: z.string() })
  .meta({ id: 'MasterEvent' });
export const EventPage = z.object({ items: z.array(Event), total: z.number().int(), limit: z.number().int(), offset: z.number().int() });
