import { trace } from '@opentelemetry/api';
import { UpstreamError, type MasterClient, type MeshClient, type RegistryClient, type TracingClient } from '@platform/clients';
import type { gateway, TeamMembershipClaim } from '@platform/contracts';
import { ApiError, badRequest, conflict, isUniqueViolation, readScopeWhere } from '@platform/http';
import { validateManifest } from '@platform/manifest';
import { activeTraceId } from '@platform/telemetry';
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { owned, rules, scopeColumns } from '../access/ownership';
import type { ReplyHub } from '../replies/reply-hub';
import type { AgentRow, AgentsRepository } from './agents.repository';
import { agentView } from './agents.view';
import type { DeployTarget, Deployer } from './deployers';

export interface Caller {
  sub: string;
  permissions: string[];
  /** The caller's teams and roles, as the token carries them (ownership of shared records). */
  teams?: TeamMembershipClaim[];
  /** The caller's platform token, forwarded so permissions stay the caller's. */
  bearer: string;
}

export interface AgentDependencies {
  registry: RegistryClient;
  master: MasterClient;
  mesh: MeshClient;
  tracing: TracingClient;
  deployer: Deployer;
  /**
   * The token the saga and execute call registry, master, mesh and tracing with, for the caller:
   * a delegated one (RFC 8693: the caller's `sub`, the gateway in `act`) exchanged at auth from the
   * caller's token, so what they create there is the caller's; the caller's own token when the
   * gateway has no key of its own to exchange with.
   */
  delegate: (userToken: string) => Promise<string>;
  replies: ReplyHub;
  executeTimeoutMs: number;
  defaultImage?: string;
  onError?: (error: unknown, doing: string) => void;
}

type StepName = z.infer<typeof gateway.SagaStepName>;
type Operation = 'create' | 'update' | 'delete';
type Refs = {
  masterId?: string;
  meshId?: string;
  tracingProject?: string;
  tracingTraceId?: string;
  registryVersion?: string;
  registryCreated?: boolean;
  deployment?: Record<string, unknown>;
};

interface Step {
  name: StepName;
  /** Does the work; what it returns is recorded as the step's detail. */
  run: () => Promise<object | undefined>;
  /** Undoes it when a later step fails. */
  undo?: () => Promise<unknown>;
}

interface ManifestFacts {
  namespace: string;
  name: string;
  version: string;
  capabilities: string[];
  description?: string;
  image?: string;
}

/** The mesh's record of an agent the gateway registers: the same on create, update and undo. */
function meshRegistration(id: string, facts: ManifestFacts, endpoint: string | undefined) {
  return { id, name: facts.name, namespace: facts.namespace, capabilities: facts.capabilities, endpoint, metadata: { version: facts.version, gateway: true } };
}

/** 502 naming the step and the service that failed, with every step's outcome. */
class SagaFailed extends ApiError {
  constructor(step: StepName, cause: unknown, agent: z.infer<typeof gateway.GatewayAgent>) {
    const upstream = cause instanceof ApiError ? cause : undefined;
    const status = upstream && upstream.status === 503 ? 503 : 502;
    super(status, 'api_error', status === 503 ? 'service_unavailable' : 'upstream_error', `The ${step} step failed: ${(cause as Error).message}`, {
      step,
      service: upstream instanceof UpstreamError ? upstream.service : step,
      upstreamStatus: upstream instanceof UpstreamError ? upstream.upstreamStatus : undefined,
      agent,
    });
  }
}

const manifestRuntimeImage = (manifest: Record<string, unknown>): string | undefined => {
  const runtime = (manifest.runtime ?? (manifest.spec as Record<string, unknown> | undefined)?.runtime) as { image?: unknown } | undefined;
  return typeof runtime?.image === 'string' ? runtime.image : undefined;
};

/**
 * Agents as one call: publish to the registry, record in master, register with the mesh,
 * create the tracing project, deploy. Each step is recorded; a failing step undoes the ones
 * before it, newest first. Updates and deletes walk the same services.
 */
export class AgentsService {
  constructor(
    private readonly repository: AgentsRepository,
    private readonly deps: AgentDependencies,
  ) {}

  private facts(manifest: Record<string, unknown>): ManifestFacts {
    const result = validateManifest(manifest);
    if (!result.valid)
      throw badRequest('The manifest is invalid', {
        issues: result.errors.map((issue) => ({ ...issue, path: `body.manifest${issue.path.replace(/^\$/, '')}` })),
        warnings: result.warnings,
      });
    const metadata = manifest.metadata as { name: string; namespace?: string; version?: string; description?: string };
    if (!metadata.version)
      throw badRequest('The manifest needs metadata.version', {
        issues: [{ path: 'body.manifest.metadata.version', message: 'required to publish', code: 'required' }],
      });
    const security = manifest.security as { capabilities?: { required?: string[]; optional?: string[] } } | undefined;
    return {
      namespace: metadata.namespace ?? 'default',
      name: metadata.name,
      version: metadata.version,
      capabilities: [...new Set([...(security?.capabilities?.required ?? []), ...(security?.capabilities?.optional ?? [])])],
      description: metadata.description,
      image: manifestRuntimeImage(manifest),
    };
  }

  private target(
    row: { id: string },
    facts: ManifestFacts,
    manifest: Record<string, unknown>,
    deployment: z.infer<typeof gateway.DeploymentRequest>,
  ): DeployTarget {
    return {
      id: row.id,
      namespace: facts.namespace,
      name: facts.name,
      version: facts.version,
      manifest,
      image: deployment.image ?? facts.image ?? this.deps.defaultImage,
      port: deployment.port,
      replicas: deployment.replicas,
      endpoint: deployment.endpoint,
      env: deployment.env,
    };
  }

  /** The call options of a call made for the caller (see AgentDependencies.delegate). */
  private async onBehalf(caller: Caller): Promise<{ bearer: string }> {
    return { bearer: await this.deps.delegate(caller.bearer) };
  }

  /** Runs steps in order, recording each; on a failure, undoes the done ones newest first and throws. */
  private async runSaga(agentId: string, operation: Operation, steps: Step[], onFailure: () => Promise<AgentRow>): Promise<void> {
    const done: Array<{ step: Step; recordId: string }> = [];
    for (const [position, step] of steps.entries()) {
      const record = await this.repository.startStep(agentId, operation, step.name, position);
      try {
        const detail = await step.run();
        await this.repository.finishStep(record.id, detail === undefined ? 'skipped' : 'done', { detail });
        done.push({ step, recordId: record.id });
      } catch (error) {
        await this.repository.finishStep(record.id, 'failed', { error: (error as Error).message });
        for (const { step: previous, recordId } of done.reverse()) {
          if (!previous.undo) continue;
          await previous.undo().then(
            () => this.repository.finishStep(recordId, 'compensated'),
            (undoError: unknown) => this.repository.finishStep(recordId, 'compensation_failed', { error: (undoError as Error).message }),
          );
        }
        const row = await onFailure();
        if (error instanceof ApiError && error.status < 500 && !(error instanceof UpstreamError)) throw error;
        throw new SagaFailed(step.name, error, agentView(row));
      }
    }
  }

  async create(caller: Caller, body: z.infer<typeof gateway.CreateAgentBody>) {
    const facts = this.facts(body.manifest);
    const deployment = body.deployment;
    if (this.deps.deployer.kind === 'kubernetes' && !(deployment.image ?? facts.image ?? this.deps.defaultImage)) {
      throw badRequest('The Kubernetes deployer needs an image: deployment.image or the manifest runtime.image', {
        issues: [{ path: 'body.deployment.image', message: 'required', code: 'required' }],
      });
    }
    const { owner, team } = rules.agent.ownerFor(caller, body.team);
    // Before anything is recorded: auth refusing the exchange leaves no half-made agent behind.
    const user = await this.onBehalf(caller);
    const existing = await this.repository.findByName(facts.namespace, facts.name);
    // A failed agent is replaced only by whom may change it; to anyone else the name is simply taken.
    if (existing && (existing.status !== 'failed' || !rules.agent.canWrite(caller, owned(existing)!)))
      throw conflict(`The agent ${facts.namespace}/${facts.name} exists`, { id: existing.id });
    if (existing) await this.repository.delete(existing.id);
    let row: AgentRow;
    try {
      row = await this.repository.create({
        namespace: facts.namespace,
        name: facts.name,
        version: facts.version,
        ownerSub: owner,
        team,
        manifest: body.manifest,
        deployment: { deployer: this.deps.deployer.kind, ...deployment },
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict(`The agent ${facts.namespace}/${facts.name} exists`);
      throw error;
    }
    const target = this.target(row, facts, body.manifest, deployment);
    const endpoint = this.deps.deployer.endpointFor(target);
    const refs: Refs = {};
    const span = trace.getActiveSpan();
    span?.setAttribute('agent.id', row.id);

    await this.runSaga(
      row.id,
      'create',
      [
        {
          name: 'registry',
          run: async () => {
            const published = await this.deps.registry.publish(body.manifest, user);
            refs.registryVersion = published.version.version;
            refs.registryCreated = published.created;
            return { namespace: facts.namespace, name: facts.name, version: published.version.version, created: published.created };
          },
          undo: () =>
            refs.registryCreated
              ? this.deps.registry.deleteAgent(facts.namespace, facts.name, user)
              : this.deps.registry.unpublishVersion(facts.namespace, facts.name, facts.version, user),
        },
        {
          name: 'master',
          run: async () => {
            refs.masterId = (await this.deps.master.createAgent(body.manifest, user)).id;
            return { id: refs.masterId };
          },
          undo: () => this.deps.master.deleteAgent(refs.masterId!, user),
        },
        {
          name: 'mesh',
          run: async () => {
            const registered = await this.deps.mesh.register(meshRegistration(row.id, facts, endpoint), user);
            refs.meshId = registered.id;
            return { id: registered.id, endpoint: endpoint ?? null };
          },
          undo: () => this.deps.mesh.deregister(refs.meshId!, user),
        },
        {
          name: 'tracing',
          run: async () => {
            const project = await this.deps.tracing.createProject(
              `agent-${facts.namespace}-${facts.name}`,
              { 'agent.id': row.id, 'agent.version': facts.version },
              user,
            );
            refs.tracingProject = project.project;
            refs.tracingTraceId = project.traceId;
            return project;
          },
          undo: () => this.deps.tracing.deleteTrace(refs.tracingTraceId!, user),
        },
        {
          name: 'deployer',
          run: async () => {
            // A deployment that failed half way (Deployment made, Service refused) leaves nothing behind.
            refs.deployment = await this.deps.deployer.apply(target).catch(async (error: unknown) => {
              await this.deps.deployer.remove(target).catch(() => undefined);
              throw error;
            });
            return refs.deployment;
          },
          undo: () => this.deps.deployer.remove(target),
        },
      ],
      () => this.repository.update(row.id, { status: 'failed', refs, error: 'creation failed; completed steps were undone' }),
    );
    return agentView(await this.repository.update(row.id, { status: 'active', refs, endpoint: endpoint ?? null, error: null }));
  }

  /** The agent when the caller may change it: 404 when they may not read it, 403 when they only may. */
  private async writable(caller: Caller, id: string): Promise<AgentRow> {
    return rules.agent.writable(caller, owned(await this.repository.find(id)), id);
  }

  async get(caller: Caller, id: string) {
    return agentView(rules.agent.readable(caller, owned(await this.repository.find(id)), id));
  }

  async list(caller: Caller, query: z.infer<typeof gateway.AgentListQuery>) {
    const scope = readScopeWhere(rules.agent.readScope(caller), scopeColumns);
    const { items, total } = await this.repository.list({ namespace: query.namespace, status: query.status }, scope, query);
    const views = items.map(agentView).filter((agent) => !query.capability || agent.capabilities.includes(query.capability));
    return { items: views, total, limit: query.limit, offset: query.offset };
  }

  async update(caller: Caller, id: string, body: z.infer<typeof gateway.UpdateAgentBody>) {
    const row = await this.writable(caller, id);
    if (row.status !== 'active') throw conflict(`The agent is ${row.status}; only an active agent can be updated`, { status: row.status });
    const oldManifest = row.manifest as Record<string, unknown>;
    const oldDeployment = row.deployment as z.infer<typeof gateway.DeploymentRequest>;
    const manifest = body.manifest ?? oldManifest;
    const deployment = { ...oldDeployment, ...body.deployment };
    const facts = this.facts(manifest);
    const oldFacts = this.facts(oldManifest);
    if (facts.namespace !== row.namespace || facts.name !== row.name)
      throw badRequest('metadata.namespace and metadata.name cannot change', {
        issues: [{ path: 'body.manifest.metadata.name', message: 'must stay the same', code: 'immutable' }],
      });
    const manifestChanged = body.manifest !== undefined && JSON.stringify(body.manifest) !== JSON.stringify(oldManifest);
    if (manifestChanged && facts.version === row.version) throw conflict('A changed manifest needs a new metadata.version', { version: row.version });
    const refs = { ...(row.refs as Refs) };
    const target = this.target(row, facts, manifest, deployment);
    const oldTarget = this.target(row, oldFacts, oldManifest, oldDeployment);
    const endpoint = this.deps.deployer.endpointFor(target);
    const user = await this.onBehalf(caller);
    await this.repository.clearSteps(row.id);
    await this.repository.update(row.id, { status: 'updating' });
    const skip = async () => undefined;
    await this.runSaga(
      row.id,
      'update',
      [
        {
          name: 'registry',
          run: manifestChanged
            ? async () => ({ version: (await this.deps.registry.publishVersion(facts.namespace, facts.name, manifest, user)).version.version })
            : skip,
          undo: () => this.deps.registry.unpublishVersion(facts.namespace, facts.name, facts.version, user),
        },
        {
          name: 'master',
          run: manifestChanged ? async () => ({ id: (await this.deps.master.replaceAgent(refs.masterId!, manifest, user)).id }) : skip,
          undo: () => this.deps.master.replaceAgent(refs.masterId!, oldManifest, user),
        },
        {
          name: 'mesh',
          run: async () => ({
            id: (await this.deps.mesh.register(meshRegistration(row.id, facts, endpoint), user)).id,
          }),
          undo: () => this.deps.mesh.register(meshRegistration(row.id, oldFacts, row.endpoint ?? undefined), user),
        },
        { name: 'tracing', run: skip },
        {
          name: 'deployer',
          run: async () => (refs.deployment = await this.deps.deployer.apply(target)),
          undo: () => this.deps.deployer.apply(oldTarget),
        },
      ],
      () => this.repository.update(row.id, { status: 'active', error: 'the last update failed; completed steps were undone' }),
    );
    return agentView(
      await this.repository.update(row.id, { status: 'active', manifest, deployment, version: facts.version, refs, endpoint: endpoint ?? null, error: null }),
    );
  }

  async remove(caller: Caller, id: string): Promise<void> {
    const row = await this.writable(caller, id);
    const manifest = row.manifest as Record<string, unknown>;
    const facts = this.facts(manifest);
    const refs = row.refs as Refs;
    const target = this.target(row, facts, manifest, row.deployment as z.infer<typeof gateway.DeploymentRequest>);
    const user = await this.onBehalf(caller);
    const gone = (error: unknown) => {
      if (error instanceof UpstreamError && error.upstreamStatus === 404) return { alreadyGone: true };
      throw error;
    };
    await this.repository.clearSteps(row.id);
    await this.repository.update(row.id, { status: 'deleting' });
    // Nothing is undone on a failed delete: it stays `deleting` and a repeated DELETE finishes it.
    await this.runSaga(
      row.id,
      'delete',
      [
        { name: 'deployer', run: async () => (await this.deps.deployer.remove(target), { removed: true }) },
        {
          name: 'mesh',
          run: () =>
            refs.meshId ? this.deps.mesh.deregister(refs.meshId, user).then(() => ({ deregistered: refs.meshId }), gone) : Promise.resolve(undefined),
        },
        { name: 'tracing', run: async () => ({ kept: refs.tracingProject ?? null }) },
        {
          name: 'master',
          run: () =>
            refs.masterId ? this.deps.master.deleteAgent(refs.masterId, user).then(() => ({ deleted: refs.masterId }), gone) : Promise.resolve(undefined),
        },
        {
          name: 'registry',
          run: () => this.deps.registry.deleteAgent(facts.namespace, facts.name, user).then(() => ({ deleted: `${facts.namespace}/${facts.name}` }), gone),
        },
      ],
      () => this.repository.update(row.id, { status: 'deleting', error: 'deletion stopped; DELETE again to finish it' }),
    );
    await this.repository.delete(row.id);
  }

  /** Sends a task to the agent through the mesh and waits for its reply. */
  async execute(caller: Caller, id: string, body: z.infer<typeof gateway.ExecuteBody>) {
    const traceId = activeTraceId();
    const messageId = randomUUID();
    const executionId = randomUUID();
    const timeoutMs = body.timeout_ms ?? this.deps.executeTimeoutMs;
    const started = Date.now();
    // Running an agent is changing it as far as ownership goes: its owner, its team's editors, agents:admin.
    const agent = rules.agent.writable(caller, owned(await this.repository.findForExecution(id)), id);
    if (agent.status !== 'active') throw conflict(`The agent is ${agent.status}`, { status: agent.status });
    // Recorded only while the agent is still active (it may have changed since it was read).
    const row = await this.repository.startExecution({
      id: executionId,
      agentId: id,
      callerSub: caller.sub,
      messageId,
      input: { input: body.input ?? null },
      traceId,
    });
    if (!row.recorded) throw conflict(`The agent is ${row.status ?? 'gone'}`, { status: row.status });
    // Listening before sending: the reply may come back before the send returns.
    const waiter = this.deps.replies.waitFor(executionId, timeoutMs);
    try {
      const user = await this.onBehalf(caller);
      await this.deps.mesh.send(
        {
          to: (agent.refs as Refs).meshId ?? agent.id,
          message_id: messageId,
          from: 'gateway',
          ttl_ms: Math.max(1000, timeoutMs),
          payload: {
            type: 'task',
            execution_id: executionId,
            input: body.input,
            reply_to: this.deps.replies.replyUrl('execution', executionId, timeoutMs + 60_000),
            trace_id: traceId ?? null,
          },
        },
        user,
      );
    } catch (error) {
      waiter.cancel();
      await this.repository.finishExecution(executionId, 'failed', { error: (error as Error).message });
      throw error;
    }
    const reply = await waiter.reply;
    if (!reply) {
      await this.repository.finishExecution(executionId, 'timeout', { error: `no reply within ${timeoutMs} ms` });
      throw new ApiError(504, 'api_error', 'upstream_timeout', `The agent did not answer within ${timeoutMs} ms`, {
        service: 'agent',
        agentId: agent.id,
        executionId,
      });
    }
    // The answer does not wait for the record of it.
    void this.repository
      .finishExecution(executionId, reply.error ? 'failed' : 'completed', {
        output: reply.output === undefined ? undefined : { output: reply.output },
        error: reply.error,
      })
      .catch((error: unknown) => this.deps.onError?.(error, 'recording an execution reply'));
    return {
      executionId,
      agentId: agent.id,
      status: reply.error ? ('failed' as const) : ('completed' as const),
      output: reply.output ?? null,
      error: reply.error ?? null,
      traceId: traceId ?? null,
      durationMs: Date.now() - started,
    };
  }

  /** An agent's reply to an execution: the first one goes to the waiting request, which records it. */
  async reply(executionId: string, reply: { output?: unknown; error?: string }): Promise<boolean> {
    return this.deps.replies.take(executionId, reply, 24 * 3600_000);
  }
}
