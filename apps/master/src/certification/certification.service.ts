import type { master } from '@platform/contracts';
import { badRequest, conflict } from '@platform/http';
import { rules, type Caller } from '../access';
import { changeable, type AgentsService } from '../agents/agents.service';
import type { ActingFor } from '../upstream/acting-for';
import type { RegistryApi } from '../upstream/registry-api';
import type { CertificationRepository, CertificationRow } from './certification.repository';

const TERMINAL = new Set(['passed', 'failed', 'error']);

function view(row: CertificationRow): master.Certification {
  return {
    id: row.id,
    agentId: row.agentId,
    namespace: row.namespace,
    name: row.name,
    version: row.version,
    status: row.status,
    checks: row.checks as master.Certification['checks'],
    error: row.error,
    requestedBy: row.requestedBy,
    owner: row.owner,
    team: row.team,
    requestedAt: row.requestedAt.toISOString(),
    completedAt: row.completedAt?.toISOString() ?? null,
  };
}

/**
 * Certification goes through the registry, which owns the one certification engine: the agent's
 * manifest is published there when its version is not yet, then certification is requested, with
 * a token delegated for the caller (or theirs forwarded): the registry judges the caller's own
 * permissions, and what is published there is theirs.
 */
export class CertificationService {
  constructor(
    private readonly certifications: CertificationRepository,
    private readonly agents: AgentsService,
    private readonly registry: RegistryApi,
    private readonly actFor: ActingFor,
  ) {}

  async request(who: Caller, agentId: string, requestedVersion?: string): Promise<master.Certification> {
    const agent = await this.agents.readable(who, agentId);
    if (agent.origin !== 'local') throw conflict(`Agent ${agentId} is mirrored from ${agent.origin}; certify it on its own platform`);
    // Certifying publishes the agent to the registry in the caller's name: a change of the agent.
    changeable(who, agent);
    const manifest = agent.manifest as { metadata?: { namespace?: string; version?: string } };
    const issues = [];
    if (!manifest.metadata?.namespace)
      issues.push({
        path: '$.metadata.namespace',
        code: 'certification.namespace.required',
        message: 'the registry names agents by namespace: set metadata.namespace',
      });
    if (!manifest.metadata?.version)
      issues.push({ path: '$.metadata.version', code: 'certification.version.required', message: 'the registry certifies versions: set metadata.version' });
    if (requestedVersion !== undefined && requestedVersion !== manifest.metadata?.version) {
      issues.push({
        path: 'body.version',
        code: 'certification.version.unknown',
        message: `the agent's manifest is version ${manifest.metadata?.version ?? '(none)'}`,
      });
    }
    if (issues.length > 0) throw badRequest('The agent cannot be certified as declared', { issues });
    const version = manifest.metadata!.version!;
    const authorization = await this.actFor(who);
    if (!(await this.registry.hasVersion(authorization, agent.namespace, agent.name, version))) {
      await this.registry.publish(authorization, agent.manifest as object);
    }
    const certification = await this.registry.requestCertification(authorization, agent.namespace, agent.name, version);
    return view(await this.certifications.create(agent.id, certification, who.sub, { owner: agent.owner, team: agent.team }));
  }

  /** The certification, refreshed from the registry until it is final. */
  async get(who: Caller, id: string): Promise<master.Certification> {
    const row = rules.certification.readable(who, await this.certifications.find(id), id);
    if (TERMINAL.has(row.status)) return view(row);
    const current = await this.registry.findCertification(who.authorization, row.namespace, row.name, row.id);
    if (!current) return view(row);
    return view(
      current.status === row.status && current.checks.length === (row.checks as unknown[]).length ? row : await this.certifications.update(row, current),
    );
  }
}
