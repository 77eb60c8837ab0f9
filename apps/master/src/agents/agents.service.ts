import type { master } from '@platform/contracts';
import { badRequest, conflict, forbidden, isUniqueViolation } from '@platform/http';
import { validateManifest, type Manifest } from '@platform/manifest';
import { rules, type Caller } from '../access';
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

/**
 * Agents anyone who may read agents reads, whoever owns them: those mirrored from a federation
 * peer (that peer's public catalog, owned by no user here, read-only) and those whose manifest
 * publishes them (`metadata.catalog.visibility: public`, the owner's choice; peers mirror these).
 * Changing, certifying and deleting stay with the owner, the team's editors and agents:admin.
 */
export function isCatalogAgent(row: Pick<AgentRow, 'origin' | 'visibility'>): boolean {
  return row.origin !== 'local' || row.visibility === 'public';
}

/** Whether the caller may read this agent: a catalog agent, or one the ownership rule lets them read. */
export function canReadAgent(who: Caller, row: AgentRow): boolean {
  return isCatalogAgent(row) || rules.agent.canRead(who, row);
}

/**
 * A local agent the caller may read, when they may also change it; 403 otherwise (a public agent
 * is read by everyone, so a reader who may not change it is told so rather than given a 404).
 */
export function changeable(who: Caller, row: AgentRow): AgentRow {
  if (isCatalogAgent(row) && !rules.agent.canWrite(who, row)) {
    throw forbidden('Only its owner, an editor of its team or agents:admin may change it', {
      required: 'agents:admin',
      userPermissions: who.permissions,
      reason: 'not_owner',
    });
  }
  return rules.agent.writable(who, row, row.id);
}

/** Agents: a manifest plus its state, owned by who declared it. Agents mirrored from federation peers are read-only. */
export class AgentsService {
  constructor(private readonly agents: AgentsRepository) {}

  async list(who: Caller, query: master.AgentListQuery): Promise<master.AgentPage> {
    const { rows, total } = await this.agents.list(query, rules.agent.readScope(who));
    return { items: rows.map(agentView), total, limit: query.limit, offset: query.offset };
  }

  async get(who: Caller, id: string): Promise<master.Agent> {
    return agentView(await this.readable(who, id));
  }

  /** The agent when the caller may read it; 404 otherwise, as for one that does not exist. */
  async readable(who: Caller, id: string): Promise<AgentRow> {
    const row = await this.agents.find(id);
    if (row && isCatalogAgent(row)) return row;
    return rules.agent.readable(who, row, id);
  }

  /**
   * A local agent the caller may change, certify or delete (404 if they may not read it, 403 if
   * they only may); a mirrored one is read-only (409).
   */
  async writable(who: Caller, id: string): Promise<AgentRow> {
    const row = await this.readable(who, id);
    if (row.origin !== 'local') throw conflict(`Agent ${id} is mirrored read-only from ${row.origin}`, { origin: row.origin });
    return changeable(who, row);
  }

  async create(who: Caller, document: object, team?: string): Promise<master.Agent> {
    const owned = rules.agent.ownerFor(who, team);
    const manifest = acceptManifest(document);
    const facts = manifestFacts(manifest);
    try {
      return agentView(await this.agents.create(facts, manifest, who.sub, owned));
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict(`Agent ${facts.namespace}/${facts.name} already exists`, { namespace: facts.namespace, name: facts.name });
      throw error;
    }
  }

  async replace(who: Caller, id: string, document: object): Promise<master.Agent> {
    const existing = await this.writable(who, id);
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
    await this.writable(who, id);
    const outcome = await this.agents.deleteUnlessInUse(id, who.sub);
    if (!outcome.deleted) {
      throw conflict(`Agent ${id} is used by a running orchestration`, { executions: outcome.executions });
    }
  }
}
