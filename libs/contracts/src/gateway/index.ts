import { z } from 'zod';
import { PageQuery } from '../paging';

/**
 * Request and response bodies of the unified gateway (spec 2, "Gateway API", 1.0.0). The spec
 * leaves every body open; apps/gateway/README.md says what each one holds.
 */
// eslint-disable-next-line no-control-regex
const PLAIN_TEXT = /^[^\u0000-\u001f\u007f]*$/;
const plain = (max: number) => z.string().min(1).max(max).regex(PLAIN_TEXT, 'no control characters');
// eslint-disable-next-line no-control-regex -- refusing NUL is the point
const NO_NUL = /^[^\u0000]*$/;
const text = (max: number) => z.string().min(1).max(max).regex(NO_NUL, 'no NUL characters');
const httpUrl = z
  .string()
  .max(2048)
  .url()
  .refine((value) => /^https?:\/\//i.test(value), 'an http(s) URL');
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const small = (max: number) => (value: unknown) => JSON.stringify(value ?? null).length <= max;

/** Environment variables (or pipeline variables): names as a shell takes them, 16 KiB in all. */
const environmentVariables = () =>
  z
    .record(
      z
        .string()
        .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
        .max(128),
      z.string().max(4096),
    )
    .refine(small(16_384), 'at most 16 KiB')
    .default({});

export const Id = z.uuid();
/** A team (auth's id) to share a new resource with: its members read it, its editors change and run it. */
export const TeamId = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[\x21-\x7e]+$/, 'a team id');
/** Who a resource belongs to, on every response that shows one. */
const ownership = { owner: z.string(), team: z.string().nullable() };
export const Manifest = z.record(z.string(), z.unknown()).describe('An agent manifest (spec 1) as a JSON object');

// ---------------------------------------------------------------------------------------------
// Agents
export const Deployer = z.enum(['none', 'kubernetes']);
export const DeploymentRequest = z
  .object({
    /** Container image (kubernetes); default the manifest's `runtime.image`, else GATEWAY_DEFAULT_IMAGE. */
    image: z
      .string()
      .min(1)
      .max(512)
      .regex(/^[A-Za-z0-9][A-Za-z0-9._\-/:@]*$/, 'an image reference')
      .optional(),
    /** The port the agent listens on (kubernetes). */
    port: z.number().int().min(1).max(65535).default(8080),
    replicas: z.number().int().min(0).max(50).default(1),
    /** Where the agent already runs (deployer `none`): the mesh delivers tasks there. */
    endpoint: httpUrl.optional(),
    env: environmentVariables(),
  })
  .strict();
export type DeploymentRequest = z.infer<typeof DeploymentRequest>;

export const CreateAgentBody = z
  .object({ manifest: Manifest, deployment: DeploymentRequest.default({ port: 8080, replicas: 1, env: {} }), team: TeamId.optional() })
  .strict()
  .refine((body) => small(1024 * 1024)(body.manifest), { path: ['manifest'], message: 'at most 1 MiB' });
export type CreateAgentBody = z.infer<typeof CreateAgentBody>;

export const UpdateAgentBody = z
  .object({ manifest: Manifest.optional(), deployment: DeploymentRequest.partial().strict().optional() })
  .strict()
  .refine((body) => body.manifest !== undefined || body.deployment !== undefined, 'a manifest or a deployment to change')
  .refine((body) => small(1024 * 1024)(body.manifest), { path: ['manifest'], message: 'at most 1 MiB' });
export type UpdateAgentBody = z.infer<typeof UpdateAgentBody>;

export const SagaStepName = z.enum(['registry', 'master', 'mesh', 'tracing', 'deployer']);
export const StepStatus = z.enum(['pending', 'done', 'failed', 'compensated', 'compensation_failed', 'skipped']);
export const AgentStep = z.object({
  operation: z.enum(['create', 'update', 'delete']),
  step: SagaStepName,
  status: StepStatus,
  detail: z.unknown().nullable(),
  error: z.string().nullable(),
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
});
export const AgentStatus = z.enum(['creating', 'active', 'failed', 'updating', 'deleting']);
export const GatewayAgent = z
  .object({
    id: z.string(),
    namespace: z.string(),
    name: z.string(),
    version: z.string(),
    status: AgentStatus,
    ...ownership,
    endpoint: z.string().nullable(),
    deployment: z.object({ deployer: Deployer }).loose(),
    refs: z.record(z.string(), z.unknown()),
    capabilities: z.array(z.string()),
    error: z.string().nullable(),
    steps: z.array(AgentStep),
    manifest: Manifest,
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'GatewayAgent' });
export type GatewayAgent = z.infer<typeof GatewayAgent>;

export const AgentParams = z.object({ agentId: Id });
export const AgentListQuery = PageQuery.extend({
  namespace: z.string().max(63).regex(DNS_LABEL).optional(),
  status: AgentStatus.optional(),
  capability: plain(128).optional(),
}).strict();
export const AgentPage = z.object({ items: z.array(GatewayAgent), total: z.number().int(), limit: z.number().int(), offset: z.number().int() });

export const ExecuteBody = z
  .object({
    input: z.unknown().refine((value) => value !== undefined, 'input is required'),
    /** How long to wait for the agent's answer (ms). */
    timeout_ms: z.number().int().min(100).max(300_000).optional(),
  })
  .strict()
  .refine((body) => small(256 * 1024)(body.input), { path: ['input'], message: 'at most 256 KiB' });
export const ExecuteResult = z.object({
  executionId: z.string(),
  agentId: z.string(),
  status: z.enum(['completed', 'failed']),
  output: z.unknown(),
  error: z.string().nullable(),
  traceId: z.string().nullable(),
  durationMs: z.number(),
});

/** What an agent posts to the reply URL it was given with a task. */
export const ReplyBody = z
  .object({ output: z.unknown().optional(), error: text(2000).optional() })
  .strict()
  .refine((body) => small(1024 * 1024)(body.output), { path: ['output'], message: 'at most 1 MiB' });
export const ReplyParams = z.object({
  token: z
    .string()
    .min(10)
    .max(400)
    .regex(/^[A-Za-z0-9._-]+$/),
});

// ---------------------------------------------------------------------------------------------
// Workflows
/** Flow-based frameworks run on the workflow engine, chain-based ones on workers. */
export const WorkflowFramework = z.enum(['langflow', 'flow', 'langchain', 'chain']);
export const CreateWorkflowBody = z
  .object({
    name: plain(200),
    framework: WorkflowFramework,
    description: text(2000).optional(),
    /** flow-based: `{nodes, edges}` as the workflow engine takes it. */
    flow: z.record(z.string(), z.unknown()).optional(),
    /** chain-based: the steps as workers take them. */
    steps: z.array(z.record(z.string(), z.unknown())).min(1).max(200).optional(),
    category: plain(100).optional(),
    team: TeamId.optional(),
  })
  .strict()
  .refine((body) => (['langflow', 'flow'].includes(body.framework) ? body.flow !== undefined : body.steps !== undefined), {
    path: ['framework'],
    message: 'flow-based frameworks need `flow`, chain-based ones `steps`',
  })
  .refine((body) => small(1024 * 1024)(body), 'at most 1 MiB');
export const GatewayWorkflow = z
  .object({
    id: z.string(),
    name: z.string(),
    framework: WorkflowFramework,
    target: z.enum(['workflow-engine', 'workers']),
    remoteId: z.string(),
    ...ownership,
    createdAt: z.string(),
  })
  .meta({ id: 'GatewayWorkflow' });
export const WorkflowListQuery = PageQuery.extend({ framework: WorkflowFramework.optional() }).strict();
export const WorkflowPage = z.object({ items: z.array(GatewayWorkflow), total: z.number().int(), limit: z.number().int(), offset: z.number().int() });
export const WorkflowParams = z.object({ workflowId: Id });
export const ExecuteWorkflowBody = z
  .object({ inputs: z.record(z.string(), z.unknown()).default({}) })
  .strict()
  .refine((body) => small(256 * 1024)(body.inputs), { path: ['inputs'], message: 'at most 256 KiB' });
export const WorkflowExecution = z.object({ workflowId: z.string(), target: z.string(), execution: z.unknown() });

// ---------------------------------------------------------------------------------------------
// CMS
export const CmsContentBody = z
  .object({
    type: z
      .string()
      .min(1)
      .max(64)
      .regex(/^[a-z][a-z0-9_]*$/, 'a content type such as article or page'),
    title: text(255),
    body: text(100_000).optional(),
    status: z.enum(['draft', 'published']).default('draft'),
    fields: z
      .record(
        z
          .string()
          .regex(/^[a-z][a-z0-9_]*$/)
          .max(64),
        z.unknown(),
      )
      .refine(small(64 * 1024), 'at most 64 KiB')
      .default({}),
  })
  .strict();
export const CmsContentQuery = PageQuery.extend({
  type: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[a-z][a-z0-9_]*$/)
    .default('article'),
  status: z.enum(['draft', 'published']).optional(),
}).strict();
export const CmsItem = z.object({ id: z.string(), type: z.string(), attributes: z.record(z.string(), z.unknown()) }).meta({ id: 'GatewayCmsItem' });
export const CmsPage = z.object({ items: z.array(CmsItem), total: z.number().int(), limit: z.number().int(), offset: z.number().int() });
export const CmsUserBody = z
  .object({
    name: z.string().min(1).max(60).regex(PLAIN_TEXT),
    mail: z.email().max(254),
    roles: z
      .array(
        z
          .string()
          .min(1)
          .max(64)
          .regex(/^[a-z][a-z0-9_]*$/),
      )
      .max(20)
      .default([]),
    status: z.boolean().default(true),
  })
  .strict();
export const CmsUserQuery = PageQuery.strict();
export const SitePageSpec = z
  .object({
    title: text(255),
    path: z
      .string()
      .max(255)
      .regex(/^\/[A-Za-z0-9/_-]*$/)
      .optional(),
    prompt: text(4000).optional(),
  })
  .strict();
export const CreateSiteBody = z
  .object({
    name: plain(200),
    description: text(4000).optional(),
    pages: z.array(SitePageSpec).min(1).max(100),
    /** A capability an agent in the mesh serves to write each page; without it pages get their prompt as body. */
    capability: z
      .string()
      .min(1)
      .max(128)
      .regex(/^[A-Za-z0-9][A-Za-z0-9._:/-]*$/)
      .optional(),
    team: TeamId.optional(),
  })
  .strict();
export const SiteJobStatus = z.enum(['queued', 'running', 'completed', 'failed']);
export const SiteJob = z
  .object({
    id: z.string(),
    name: z.string(),
    status: SiteJobStatus,
    progress: z.object({ total: z.number().int(), done: z.number().int(), percent: z.number() }),
    pages: z.array(z.object({ title: z.string(), path: z.string().nullable(), cmsId: z.string().nullable(), status: z.string() })),
    error: z.string().nullable(),
    ...ownership,
    createdAt: z.string(),
    updatedAt: z.string(),
    links: z.object({ self: z.string() }),
  })
  .meta({ id: 'GatewaySiteJob' });
export const SiteParams = z.object({ siteId: Id });

// ---------------------------------------------------------------------------------------------
// Studio
export const CreateSessionBody = z
  .object({
    name: plain(200),
    repository: httpUrl.optional(),
    /** The mesh capability of the coding agent that runs the session's tasks. */
    capability: z
      .string()
      .min(1)
      .max(128)
      .regex(/^[A-Za-z0-9][A-Za-z0-9._:/-]*$/)
      .default('coding'),
    team: TeamId.optional(),
  })
  .strict();
export const StudioTaskStatus = z.enum(['queued', 'running', 'completed', 'failed']);
export const StudioTask = z
  .object({
    id: z.string(),
    sessionId: z.string(),
    instruction: z.string(),
    status: StudioTaskStatus,
    agentId: z.string().nullable(),
    result: z.unknown().nullable(),
    error: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'GatewayStudioTask' });
export const StudioSession = z
  .object({
    id: z.string(),
    name: z.string(),
    repository: z.string().nullable(),
    capability: z.string(),
    status: z.string(),
    ...ownership,
    tasks: z.array(StudioTask),
    createdAt: z.string(),
  })
  .meta({ id: 'GatewayStudioSession' });
export const SessionPage = z.object({ items: z.array(StudioSession), total: z.number().int(), limit: z.number().int(), offset: z.number().int() });
export const SessionParams = z.object({ sessionId: Id });
export const TaskParams = SessionParams.extend({ taskId: Id });
export const CreateTaskBody = z.object({ instruction: text(20_000) }).strict();

// ---------------------------------------------------------------------------------------------
// SCM
export const CreatePipelineBody = z
  .object({
    project: z
      .string()
      .min(1)
      .max(255)
      .regex(/^[A-Za-z0-9][A-Za-z0-9._\-/]*$/, 'a project path such as group/name'),
    ref: z
      .string()
      .min(1)
      .max(255)
      .regex(/^[A-Za-z0-9][A-Za-z0-9._\-/]*$/, 'a branch or tag'),
    variables: environmentVariables(),
  })
  .strict();
export const PipelineQuery = PageQuery.extend({
  project: z
    .string()
    .min(1)
    .max(255)
    .regex(/^[A-Za-z0-9][A-Za-z0-9._\-/]*$/),
  status: z.enum(['created', 'pending', 'running', 'success', 'failed', 'canceled', 'skipped', 'manual']).optional(),
}).strict();
export const Pipeline = z
  .object({ id: z.number(), project: z.string(), ref: z.string(), status: z.string(), webUrl: z.string().nullable(), createdAt: z.string().nullable() })
  .meta({ id: 'GatewayPipeline' });
export const PipelinePage = z.object({ items: z.array(Pipeline), total: z.number().int(), limit: z.number().int(), offset: z.number().int() });
export const PackageQuery = PageQuery.extend({
  /** `group/<path>` or `project/<path>`; a bare path means a project. */
  scope: z
    .string()
    .min(1)
    .max(255)
    .regex(/^((group|project)\/)?[A-Za-z0-9][A-Za-z0-9._\-/]*$/, 'group/<path>, project/<path> or a project path'),
  package_type: z.enum(['npm', 'maven', 'pypi', 'generic', 'conan', 'nuget', 'composer', 'helm', 'golang']).optional(),
}).strict();
export const Package = z
  .object({ id: z.number(), name: z.string(), version: z.string(), packageType: z.string(), createdAt: z.string().nullable() })
  .meta({ id: 'GatewayPackage' });
export const PackagePage = z.object({ scope: z.string(), items: z.array(Package), total: z.number().int(), limit: z.number().int(), offset: z.number().int() });

// ---------------------------------------------------------------------------------------------
// Discovery
export const DiscoverQuery = z
  .object({
    capability: z
      .string()
      .min(1)
      .max(128)
      .regex(/^[A-Za-z0-9][A-Za-z0-9._:/-]*$/)
      .optional(),
    framework: z
      .string()
      .min(1)
      .max(64)
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/)
      .optional(),
    limit: z.coerce.number().int().min(1).max(500).default(50),
  })
  .strict();
export const DiscoveredItem = z.object({
  source: z.enum(['registry', 'mesh', 'mcp-registry']),
  kind: z.enum(['agent', 'live-agent', 'mcp-server']),
  id: z.string(),
  name: z.string(),
  capabilities: z.array(z.string()),
  framework: z.string().nullable(),
  status: z.string().nullable(),
  endpoint: z.string().nullable(),
});
export const DiscoverResult = z.object({
  items: z.array(DiscoveredItem),
  total: z.number().int(),
  sources: z.record(z.string(), z.object({ status: z.enum(['ok', 'unavailable']), count: z.number().int(), error: z.string().optional() })),
});
export * from './console';
