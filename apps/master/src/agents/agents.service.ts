import type { master } from '@platform/contracts';
import { badRequest, conflict, isUniqueViolation, notFound } from '@platform/http';
import { validateManifest, type Manifest } from '@platform/manifest';
import type { Caller } from '../access';
import type { AgentRow, AgentsRepository } from './agents.repository';
import { agentView } from './agents.view';
import { manifestFacts } from './manifest-facts';

/** A unique-constraint violation from Prisma. */

/** Validates a manifest with `@platform/manifest`; 400 naming each problem's JSON path otherwise. */
export function acceptManifest(document: object): Manifest {
  const result = validateManifest(document);
  if (!result.valid || !result.manifest) {
    throw badRequest('The manifest is invalid', {
      issues: result.errors.map((issue) => ({ path: issue.path, code: issue.code, message: issue.message })),
      warnings: result.warnings,
      schemaVersion: result.schemaVersion,
    });
  }
  return result.manifest;
}

/** Agents: a manifest plus its state. Agents mirrored from federation peers are read-only. */
export class AgentsService {
  constructor(private readonly agents: AgentsRepository) {}

  async list(query: master.AgentListQuery): Promise<master.AgentPage> {
    const { rows, total } = await this.agents.list(query);
    return { items: rows.map(agentView), total, limit: query.limit, offset: query.offset };
  }

  async get(id: string): Promise<master.Agent> {
    return agentView(await this.row(id));
  }

  async row(id: string): Promise<AgentRow> {
    const row = await this.agents.find(id);
    if (!row) throw notFound(`Agent ${id} not found`);
    return row;
  }

  async create(who: Caller, document: object): Promise<master.Agent> {
    const manifest = acceptManifest(document);
    const facts = manifestFacts(manifest);
    try {
      return agentView(await this.agents.create(facts, manifest, who.sub));
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict(`Agent ${facts.namespace}/${facts.name} already exists`, { namespace: facts.namespace, name: facts.name });
      throw error;
    }
  }

  async replace(who: Caller, id: string, document: object): Promise<master.Agent> {
    const existing = await this.writable(id);
    const manifest = acceptManifest(document);
    const facts = manifestFacts(manifest);
    try {
      return agentView(await this.agents.replace(existing.id, facts, manifest, who.sub));
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict(`Agent ${facts.namespace}/${facts.name} already exists`, { namespace: facts.namespace, name: facts.name });
      throw error;
    }
  }

  async delete(who: Caller, id: string): Promise<void> {
    await this.writable(id);
    const outcome = await this.agents.deleteUnlessInUse(id, who.sub);
    if (!outcome.deleted) {
      throw conflict(`Agent ${id} is used by a running orchestration`, { executions: outcome.executions });
    }
  }

  /** A local agent; a mirrored one is read-only (409). */
  private async writable(id: string): Promise<AgentRow> {
    const row = await this.row(id);
    if (row.origin !== 'local') throw conflict(`Agent ${id} is mirrored read-only from ${row.origin}`, { origin: row.origin });
    return row;
  }
}
